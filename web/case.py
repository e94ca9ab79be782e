"""The base of the web test cases: a daemon per case, one browser per class, figures, checks.

WebCase.daemon(...) starts a WebDaemon that the case ends (its log is printed when the case
fails); self.browser is one headless chromium for the class (each case loads its own
daemon's page, on its own port, so no storage is shared between cases).
"""
import time
import unittest

import browser as browser_mod
from harness import SetupError, WebDaemon, binaries, decode, differences, missing_tools
from testkit.runner import failed


def require_everything():
    why = browser_mod.missing()
    if why:
        raise SetupError(why)
    gone = missing_tools()
    if gone:
        raise SetupError(f"missing: {', '.join(gone)} (apt-get install curl openssl)")
    binaries()


def figure(text):
    print(f"\n    figure: {text}", flush=True)


class WebCase(unittest.TestCase):
    longMessage = False   # the messages carry their figures themselves
    browser_size = (1280, 800)
    uses_browser = True

    @classmethod
    def setUpClass(cls):
        require_everything()
        cls.browser = browser_mod.Browser(*cls.browser_size) if cls.uses_browser else None

    @classmethod
    def tearDownClass(cls):
        if cls.browser:
            cls.browser.close()

    def daemon(self, web=None, **kw):
        d = WebDaemon(web, **kw)
        self.addCleanup(d.close)
        self.addCleanup(self._log_on_failure, d)
        return d.start()

    def _log_on_failure(self, d):
        if failed(self):
            print(f"\n--- isletd log ---\n{d.log_tail(2500)}")

    def ctl_ok(self, d, *args):
        r = d.ctl(*args)
        self.assertEqual(r.returncode, 0, f"isletctl {' '.join(args)} exited {r.returncode}: "
                                          f"{(r.stderr or r.stdout).decode(errors='replace').strip()}")
        return r

    def activity(self, d, timer):
        return next((a for a in d.activities() if a.get("timer") == timer), None)

    def canvas_is_panel(self, d, when, timeout=6.0):
        """Waits until the page has drawn the frame the daemon's panel holds (data-pages equals
        `isletctl status --json`'s status.panel.pages), then compares every canvas pixel with
        those pages decoded per the SSD1306 layout. Returns the status it matched."""
        deadline = time.monotonic() + timeout
        seen = None
        while True:
            panel, status = d.panel()
            c = self.browser.canvas()
            if c["pages"] != panel["pages"]:   # the daemon may have moved on while the page drew
                panel2, status2 = d.panel()
                if c["pages"] == panel2["pages"]:
                    panel, status = panel2, status2
            if c["pages"] == panel["pages"]:
                break
            seen = (c["pages"] or "")[:40]
            if time.monotonic() > deadline:
                self.fail(f"{when}: the page's canvas did not get the panel's frame within {timeout} s "
                          f"(data-pages starts {seen!r}, the panel's {panel['pages'][:40]!r})")
            time.sleep(0.03)
        self.assertEqual((c["width"], c["height"]), (panel["width"], panel["height"]),
                         f"{when}: canvas size {c['width']}x{c['height']}, panel {panel['width']}x{panel['height']}")
        self.assertEqual(c["on"], "true" if panel.get("on", True) else "false", f"{when}: data-on {c['on']} vs panel.on {panel.get('on')}")
        want = decode(panel)
        n, where = differences(want, c["pixels"], panel["width"])
        self.assertEqual(n, 0, f"{when}: {n} of {len(want)} canvas pixels differ from the panel (want/got at {where}); "
                               f"first pixel that is neither lit nor dark: {c['odd']}")
        lit = want.count("L")
        return status, lit
