"""Debian's chromium, headless, driven by Debian's chromedriver through Debian's python3-selenium.

Nothing is downloaded: the driver is /usr/bin/chromedriver, given to Selenium by path (so its
Selenium Manager never runs), and the browser /usr/bin/chromium. Browser(width, height) opens
one window of that viewport; `scale` > 1 and `mobile` emulate a phone's screen through the
DevTools protocol. The helpers read what the tests compare: the canvas's pixels, the rows of
activities, an element's state.
"""
import os
import sys
import time

CHROMIUM = os.environ.get("WEB_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("WEB_CHROMEDRIVER", "/usr/bin/chromedriver")


def import_selenium():
    """selenium.webdriver from this Python or from Debian's python3-selenium."""
    try:
        from selenium import webdriver
    except ImportError:
        if "/usr/lib/python3/dist-packages" not in sys.path:
            sys.path.append("/usr/lib/python3/dist-packages")
        try:
            from selenium import webdriver
        except ImportError as e:
            raise RuntimeError(f"the web tests need Debian's python3-selenium (apt-get install python3-selenium): {e}")
    return webdriver


def missing():
    """Why the browser cannot run here, or None."""
    for path, pkg in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (apt-get install {pkg})"
    try:
        import_selenium()
    except RuntimeError as e:
        return str(e)
    return None


# Every pixel of the canvas as one letter: L lit (exactly #e8f4ff, opaque), D dark (exactly
# #000000, opaque), ? anything else; the first odd one with its RGBA. Read in one turn of the
# page's script, with the frame (data-pages) it was drawn from.
CANVAS_JS = """
const c = document.getElementById('pill');
const w = c.width, h = c.height, d = c.getContext('2d').getImageData(0, 0, w, h).data;
const out = new Array(w * h); let odd = null;
for (let i = 0; i < w * h; i++) {
  const r = d[4 * i], g = d[4 * i + 1], b = d[4 * i + 2], a = d[4 * i + 3];
  if (r === 232 && g === 244 && b === 255 && a === 255) out[i] = 'L';
  else if (r === 0 && g === 0 && b === 0 && a === 255) out[i] = 'D';
  else { out[i] = '?'; if (!odd) odd = [i % w, Math.floor(i / w), r, g, b, a]; }
}
return {width: w, height: h, pages: c.dataset.pages || null, on: c.dataset.on || null, pixels: out.join(''), odd: odd};
"""

ROWS_JS = """
return [...document.querySelectorAll('#list > li.act')].map((li) => ({
  timer: li.dataset.timer, phase: li.dataset.phase, stale: li.dataset.stale, shown: li.dataset.shown,
  kind: li.dataset.kind, time: li.querySelector('.time').textContent}));
"""


class Browser:
    def __init__(self, width=1280, height=800, scale=1, mobile=False, lang="en-US", args=(), network_log=False):
        """`args`: more chromium flags; `network_log`: keep the DevTools network events (`network()`)."""
        webdriver = import_selenium()
        from selenium.webdriver.chrome.service import Service
        o = webdriver.ChromeOptions()
        o.binary_location = CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--no-first-run", "--disable-extensions", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  f"--window-size={width},{height}", f"--lang={lang}", "--force-device-scale-factor=1", *args):
            o.add_argument(a)
        if network_log:
            o.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        o.add_experimental_option("prefs", {"intl.accept_languages": lang})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})
        self.driver.set_script_timeout(10)

    def network(self):
        """The network events since the last call (with network_log): {requestId: {url, status,
        bytes}}, bytes being chromium's encodedDataLength, what came over the wire, headers included."""
        import json
        out = {}
        for entry in self.driver.get_log("performance"):
            m = json.loads(entry["message"])["message"]
            p = m.get("params", {})
            r = out.setdefault(p.get("requestId"), {"url": None, "status": None, "bytes": None, "cached": False})
            if m["method"] == "Network.requestWillBeSent":
                r["url"] = p["request"]["url"]
            elif m["method"] == "Network.responseReceived":
                r["status"] = p["response"]["status"]
                r["url"] = r["url"] or p["response"]["url"]
            elif m["method"] == "Network.requestServedFromCache":
                r["cached"] = True
            elif m["method"] == "Network.loadingFinished":
                r["bytes"] = p.get("encodedDataLength", 0)
        return {k: v for k, v in out.items() if k and v["url"]}

    def close(self):
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001 - a browser already gone
            pass

    def open(self, url, live=True, timeout=10):
        """Loads `url`; with live, waits until the page's event stream is up (#conn live)."""
        self.driver.get(url)
        if live:
            self.wait(lambda: self.attr("#conn", "data-state") == "live", f"{url}: #conn live", timeout)
        return self

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, pred, what, timeout=5.0, interval=0.02):
        """Polls pred() until it holds; returns its value. Fails naming `what` and the last value."""
        deadline = time.monotonic() + timeout
        while True:
            last = pred()
            if last:
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"the page: {what}: not within {timeout} s (last: {last!r})")
            time.sleep(interval)

    def attr(self, selector, name):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
                       selector, name)

    def text(self, selector):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", selector)

    def visible(self, selector):
        """Whether the element is rendered (not hidden, has a box)."""
        return bool(self.js("const e = document.querySelector(arguments[0]);"
                            "return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';",
                            selector))

    def canvas(self):
        return self.js(CANVAS_JS)

    def rows(self):
        return self.js(ROWS_JS)

    def row(self, timer):
        return next((r for r in self.rows() if r["timer"] == timer), None)

    def click(self, selector):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.CSS_SELECTOR, selector).click()

    def type(self, selector, text):
        from selenium.webdriver.common.by import By
        e = self.driver.find_element(By.CSS_SELECTOR, selector)
        e.clear()
        e.send_keys(text)

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(self.driver.get_screenshot_as_png())
