#!/usr/bin/env python3
"""`make web-screenshots`: the page as a person sees it, taken by Debian's chromium, into
docs/gallery: web-{phone,desktop}-{en,ar}.png (a phone: 390x844 CSS pixels at 2x; a desktop:
1280x800), and the views in VIEWS beside them (web-{phone,desktop}-night-en.png: night mode on,
the pill dimmed as the glass; web-{phone,desktop}-settings-{en,ar}.png: the Settings card open). isletd runs on the mock bus with a titled countdown and a
laundry `until` activity with its progress.

A new view is one more line of VIEWS: (name, languages, the daemon's extra config, what to do
on the open page), e.g. ("settings", ("en",), "", lambda b, d: b.click("#settings-open")).

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


def window(from_h, to_h):
    """`[display] night` from `from_h` to `to_h` hours after now on this machine's clock (the
    daemon's zone): the schedule, not a request, decides what each view shows."""
    now = time.localtime()
    at = lambda h: time.strftime("%H:00", time.localtime(time.mktime(now) + h * 3600))   # whole hours, as people set them
    return f"[display]\nnight = {at(from_h)}-{at(to_h)}\nnight_contrast = 40\n"


def night(b, d):
    b.wait(lambda: b.attr("#frame", "data-night") == "true", "the page in night mode")


def settings(b, d):
    """The Settings card open, one value from the page (contrast) beside the file's and the defaults."""
    d.ctl("settings", "set", "display.contrast", "160")
    b.js("document.querySelector('#settings-open').open = true")
    b.wait(lambda: b.js("return document.querySelectorAll('#settings-fields input, #settings-fields select').length") >= 10,
           "the settings' fields")
    # Scrolled once the card has its body (settings.js brings it when the card first opens).
    b.js("document.querySelector('#settings-open').scrollIntoView({block: 'start'})")


# (name, languages, the daemon's extra config, what to do before the shot; "" is the page by day).
VIEWS = (
    ("", ("en", "ar"), window(3, 10), None),
    ("night", ("en",), window(0, 8), night),
    ("settings", ("en", "ar"), window(3, 10), settings),
)


def shoot(out):
    why = missing()
    if why:
        sys.exit(f"web-screenshots: {why}")
    binaries()
    os.makedirs(out, exist_ok=True)
    for view, langs, extra, prepare in VIEWS:
        d = WebDaemon(extra=extra).start()
        try:
            d.ctl("start", "--minutes", "20", "--cycles", "3", "--title", "Morning sit")
            d.ctl("start", "--until", "+42", "--progress", "0.6", "--timer", "laundry", "--title", "Laundry",
                  "--icon", "laundry", "--text", "Rinsing")
            time.sleep(2.5)   # a couple of seconds in
            for name, w, h, scale, mobile in SHOTS:
                for lang in langs:
                    b = Browser(w, h, scale=scale, mobile=mobile)
                    try:
                        b.open(f"{d.url}/?lang={lang}")
                        b.wait(lambda: len(b.rows()) == 2 and b.text("#st-version"), "the rows and the status")
                        b.wait(lambda: b.canvas()["pages"], "the pill drawn")
                        if prepare:
                            prepare(b, d)
                        b.js("document.activeElement && document.activeElement.blur()")
                        time.sleep(0.4)
                        path = os.path.join(out, "-".join(p for p in ("web", name, view, lang) if p) + ".png")
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
