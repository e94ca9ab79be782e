"""`make test-web`: the page delivered and installed (docs/WEB.md "Delivery", "Install").

The manifest: JSON with the members an install reads (name Islet, display standalone,
start_url /, the page's dark colours), its icons load as PNGs of the sizes it lists (read from
their IHDR); the tab's icon and /favicon.ico load. The service worker registers on
http://127.0.0.1 (chromium's secure context) and keeps the page's hashed assets, and on a name
that is not localhost (islet.test, mapped to 127.0.0.1 by chromium's resolver rules) it is not
registered, while the page still works; with the daemon stopped, the page on 127.0.0.1 still
starts, from the worker's cache. The bytes on the wire (chromium's encodedDataLength,
headers included, from the DevTools network events) of the page's files:
a reload at most 2 KB; a first load in English (the page, its stylesheet, its script, the tab's
icon, the manifest) held at most 19 KB (18.5 KB when this was written), and its figure says whether it meets issue 47's goal of
16 KB, which it does not yet (docs/PERFORMANCE.md "The page delivered and installed" says what is left:
mostly the headers every answer repeats). 46 KB before issue 47, 27.1 KB with the words of seven
languages and the Settings card's script in every load. A first load in Arabic adds that
language's words file, and no other language's; the Settings card's script comes only when the
card is opened. A language's words file that does not come (blocked) leaves the page live and
whole in English, and it is asked again when the language is chosen again. The API's live data (/api/*) is counted beside the files, not in them.
"""
import json
import struct
import time
import urllib.request

import browser as browser_mod
from case import WebCase, figure

# The goals: a first load within 16 KiB on the wire, a reload within 2 KiB (docs/WEB.md "Delivery").
FIRST_LOAD_MAX, RELOAD_MAX = 16 * 1024, 2 * 1024
TEST_NAME = "islet.test"


def fetch(url):
    """(status, content type, cache-control, body bytes) of a GET (curl's Response is text)."""
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.headers.get("Content-Type"), r.headers.get("Cache-Control"), r.read()


def png_size(body):
    """(width, height) from a PNG's IHDR; None when it is not a PNG."""
    if len(body) < 24 or body[:8] != b"\x89PNG\r\n\x1a\n" or body[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", body[16:24])


class Install(WebCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # A second browser that reaches the page as http://islet.test: not localhost, so not a
        # secure context; and that keeps the network events, to count bytes.
        cls.plain = browser_mod.Browser(1280, 800, args=(f"--host-resolver-rules=MAP {TEST_NAME} 127.0.0.1",),
                                        network_log=True)

    @classmethod
    def tearDownClass(cls):
        cls.plain.close()
        super().tearDownClass()

    def test_install_manifest_and_icons(self):
        d = self.daemon()
        self.browser.open(d.url + "/")
        href = self.browser.js("return document.querySelector('link[rel=manifest]').href")
        self.assertEqual(href, d.url + "/manifest.webmanifest")
        r = d.curl("/manifest.webmanifest")
        self.assertEqual((r.status, r.header("content-type")), (200, "application/manifest+json"), r)
        m = json.loads(r.body)
        for key, want in (("name", "Islet"), ("display", "standalone"), ("start_url", "/"),
                          ("background_color", "#0b0d10"), ("theme_color", "#0b0d10")):
            self.assertEqual(m.get(key), want, f"manifest {key}")
        theme = self.browser.js("return document.querySelector('meta[name=theme-color]').content")
        self.assertEqual(theme, m["theme_color"], "the manifest's colour is the page's")
        sizes = {}
        for icon in m["icons"]:
            status, kind, cache, body = fetch(d.url + icon["src"])
            self.assertEqual((status, kind), (200, icon["type"]), icon["src"])
            w, h = png_size(body) or (0, 0)
            self.assertEqual(f"{w}x{h}", icon["sizes"], f"{icon['src']} is {w}x{h}")
            self.assertIn("immutable", cache or "", icon["src"])
            sizes[icon["sizes"]] = len(body)
        self.assertTrue({"192x192", "512x512"} <= set(sizes), sizes)
        # The icons load in the page itself too (its CSP, its origin).
        for src in [i["src"] for i in m["icons"]] + [self.browser.js("return document.querySelector('link[rel=icon]').getAttribute('href')")]:
            dims = self.browser.driver.execute_async_script(
                "const done = arguments[1]; const i = new Image(); i.onload = () => done([i.naturalWidth, i.naturalHeight]);"
                "i.onerror = () => done(null); i.src = arguments[0];", src)
            self.assertIsNotNone(dims, f"{src} did not load in the page")
        status, kind, _, ico = fetch(d.url + "/favicon.ico")
        self.assertEqual((status, kind), (200, "image/x-icon"))
        self.assertEqual(png_size(ico[22:]), (32, 32), "favicon.ico holds a 32x32 PNG")
        figure(f"manifest valid; icons {', '.join(f'{k} {v} B' for k, v in sorted(sizes.items()))}; favicon.ico {len(ico)} B")

    def test_install_service_worker_only_in_a_secure_context(self):
        d = self.daemon(web={"hostnames": TEST_NAME})
        self.browser.open(d.url + "/")
        self.assertTrue(self.browser.js("return window.isSecureContext"), "http://127.0.0.1 is a secure context")
        scope = self.browser.wait(lambda: self.browser.driver.execute_async_script(
            "const done = arguments[0]; navigator.serviceWorker.getRegistration().then("
            "(r) => done(r && r.active ? r.scope : null), () => done(null));"), "the service worker active", timeout=10)
        self.assertEqual(scope, d.url + "/")
        kept = self.browser.wait(lambda: self.browser.driver.execute_async_script(
            "const done = arguments[0]; caches.keys().then((ks) => Promise.all(ks.map((k) => caches.open(k).then((c) => c.keys()))))"
            ".then((all) => done(all.flat().map((r) => new URL(r.url).pathname)), () => done([]));"), "the cache filled")
        self.assertTrue(any(p.startswith("/app.") and p.endswith(".js") and p != "/app.js" for p in kept), kept)
        self.assertFalse(any(p.startswith("/api/") for p in kept), kept)
        # The same page by a name that is not localhost, over plain HTTP: no worker, still live.
        self.plain.open(f"http://{TEST_NAME}:{d.port}/")
        self.assertFalse(self.plain.js("return window.isSecureContext"))
        self.assertFalse(self.plain.js("return 'serviceWorker' in navigator && !!navigator.serviceWorker.controller"))
        # With the daemon gone, the page still starts on 127.0.0.1, from the worker's cache: its
        # style and its script (which then says it is disconnected).
        d.stop()
        self.browser.driver.refresh()
        started = self.browser.wait(lambda: self.browser.js(
            "return typeof ISLET_WORDS === 'object' && document.styleSheets.length > 0 && "
            "document.querySelector('#conn') && document.querySelector('#conn').dataset.state"), "the page offline", timeout=10)
        self.assertIn(started, ("connecting", "down"), "offline, the page says it is not connected")
        figure(f"service worker active on {d.url}/ keeping {len(kept)} files, the page starts offline from them "
               f"(#conn {started}); none on http://{TEST_NAME}:{d.port}/ (not a secure context)")

    def page_bytes(self, events):
        """(bytes of the page's files, {path: bytes}, bytes of the API so far)."""
        files, api = {}, 0
        for r in events.values():
            path = r["url"].split("//", 1)[-1].partition("/")[2]
            n = r["bytes"] or 0
            if path.startswith("api/"):
                api += n
            elif r["url"].startswith("http"):
                files["/" + path] = files.get("/" + path, 0) + n
        return sum(files.values()), files, api

    def test_install_bytes_on_the_wire(self):
        d = self.daemon(web={"hostnames": TEST_NAME})
        url = f"http://{TEST_NAME}:{d.port}/"   # plain HTTP, no service worker: the browser's cache alone
        self.plain.network()   # drop what came before
        self.plain.open(url)
        time.sleep(1.0)   # the icon and the manifest come after the load
        first, first_files, first_api = self.page_bytes(self.plain.network())
        self.plain.driver.refresh()
        self.plain.wait(lambda: self.plain.attr("#conn", "data-state") == "live", "live again after the reload")
        time.sleep(1.0)
        second, second_files, second_api = self.page_bytes(self.plain.network())
        figure(f"first load {first} B on the wire (bound {FIRST_LOAD_MAX} B) {first_files}; reload {second} B {second_files}; "
               f"the API beside them {first_api} B and {second_api} B")
        self.assertTrue(any(p.startswith("/app.") for p in first_files), first_files)
        self.assertFalse(any(p.startswith(("/words-", "/settings.")) for p in first_files), f"English needs no words file, "
                         f"a closed Settings card no script: {first_files}")
        self.assertLessEqual(first, FIRST_LOAD_MAX, f"first load {first} B: {first_files}")
        self.assertLessEqual(second, RELOAD_MAX, f"reload {second} B: {second_files}")
        # In Arabic, from an empty cache: the same files and Arabic's words, no other language's.
        self.plain.driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        self.plain.network()
        self.plain.open(url + "?lang=ar")
        time.sleep(1.0)
        ar, ar_files, _ = self.page_bytes(self.plain.network())
        words = sorted(p for p in ar_files if p.startswith("/words-"))
        self.assertEqual(len(words), 1, f"one words file: {ar_files}")
        self.assertTrue(words[0].startswith("/words-ar.") and words[0] != "/words-ar.js", words)
        self.assertRegex(self.plain.text("#start-go"), "[\u0600-\u06ff]", "Start in Arabic")
        figure(f"first load in Arabic {ar} B ({words[0]} {ar_files[words[0]]} B)")
        self.plain.js("localStorage.clear()")   # the next tests' page in English again

    def test_install_words_that_do_not_come_leave_english(self):
        d = self.daemon(web={"hostnames": TEST_NAME})
        url = f"http://{TEST_NAME}:{d.port}/"
        b = self.plain
        b.driver.execute_cdp_cmd("Network.enable", {})
        b.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/words-ar.*"]})
        try:
            b.open(url + "?lang=ar")   # live: the page started without its words
            root = b.js("return [document.documentElement.dir, document.documentElement.lang]")
            self.assertEqual(root, ["rtl", "ar"])
            self.assertEqual(b.text("#start-go"), "Start", "the Arabic words did not come: English, whole")
        finally:
            b.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        # Chosen again from the menu, the words come this time.
        b.js("const s = document.getElementById('lang'); s.value = 'en'; s.dispatchEvent(new Event('change'));"
             "s.value = 'ar'; s.dispatchEvent(new Event('change'));")
        start = b.wait(lambda: (lambda t: t if t != "Start" else None)(b.text("#start-go")), "Start in Arabic")
        self.assertRegex(start, "[\u0600-\u06ff]")
        b.js("localStorage.clear()")
        figure(f"words-ar blocked: the page live in English, right to left; chosen again: Start is {start!r}")
