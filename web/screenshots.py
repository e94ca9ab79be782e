#!/usr/bin/env python3
"""`make web-screenshots`: the page as a person sees it, taken by Debian's chromium, into
docs/gallery: web-phone-en.png, web-phone-ar.png (390x844 CSS pixels at 2x, a phone),
web-desktop-en.png, web-desktop-ar.png (1280x800). isletd runs on the mock bus with one titled
countdown running, so the pill shows its compact presentation with the time.

Usage: web/screenshots.py DIRECTORY
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import _path  # noqa: E402,F401  (the repository root on sys.path)
from browser import Browser, missing  # noqa: E402
from harness import WebDaemon, binaries  # noqa: E402

SHOTS = (("phone", 390, 844, 2, True), ("desktop", 1280, 800, 1, False))


def shoot(out):
    why = missing()
    if why:
        sys.exit(f"web-screenshots: {why}")
    binaries()
    os.makedirs(out, exist_ok=True)
    d = WebDaemon().start()
    try:
        d.ctl("start", "--minutes", "20", "--cycles", "3", "--title", "Morning sit")
        time.sleep(2.5)   # a couple of seconds in
        for name, w, h, scale, mobile in SHOTS:
            for lang in ("en", "ar"):
                b = Browser(w, h, scale=scale, mobile=mobile)
                try:
                    b.open(f"{d.url}/?lang={lang}")
                    b.wait(lambda: len(b.rows()) == 1 and b.text("#st-version"), "the row and the status")
                    b.wait(lambda: b.canvas()["pages"], "the pill drawn")
                    b.js("document.activeElement && document.activeElement.blur()")
                    time.sleep(0.3)
                    path = os.path.join(out, f"web-{name}-{lang}.png")
                    b.screenshot(path)
                    print(f"web-screenshots: {path}")
                finally:
                    b.close()
    finally:
        d.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    shoot(sys.argv[1])
