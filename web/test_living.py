"""`make test-web`: the page as a person lives with it (docs/WEB.md "Living with the display").

(a) the tab's title carries the pill's time and phase; (b) the until row shows its progress and
only the verbs the table allows, a refused verb is off and a refusal stays by its row; (c) in
Arabic a long Latin title loses its end, not its start; (d) a real completion and a real until
alert construct a system Notification once the driver granted the permission; (e) the night
card: the switch and the slider go through `brightness`, status.night follows, the canvas dims;
(f) every control's accessible name holds its timer; (g) quick starts remember the last lengths;
(h) read-only leaves night alone; (i) plain HTTP by a name says notifications need HTTPS; (j) a
sound allowed once comes back at the first tap.
"""
import re
import time

from case import WebCase, figure
from testkit.wait import wait_until

ROW = "#list > li.act[data-timer='{}']"

# Counts the chime's oscillators and records vibrations, through the browser's own objects.
SOUND_HOOK = """
(() => {
  window.__osc = 0; window.__vib = [];
  const AC = window.AudioContext;
  if (AC) { const real = AC.prototype.createOscillator; AC.prototype.createOscillator = function () { window.__osc++; return real.call(this); }; }
  if (navigator.vibrate) { const v = navigator.vibrate.bind(navigator); navigator.vibrate = (p) => { window.__vib.push(p); return v(p); }; }
})();
"""

# Wraps the browser's own Notification (nothing of the page's) to record each construction,
# then calls the real one: proof that the page's code asked the browser for a notification.
NOTIFICATION_HOOK = """
(() => {
  const Real = window.Notification;
  if (!Real) return;
  window.__notes = [];
  window.Notification = new Proxy(Real, {construct(target, args) {
    window.__notes.push({title: String(args[0]), body: String((args[1] || {}).body || ""), tag: String((args[1] || {}).tag || "")});
    return Reflect.construct(target, args);
  }});
})();
"""


class Living(WebCase):
    def title(self):
        return self.browser.js("return document.title")

    def test_a_the_tab_title_follows_the_pill(self):
        d = self.daemon()
        b = self.browser.open(d.url)
        self.assertEqual(self.title(), "Islet", "idle")
        self.ctl_ok(d, "start", "--seconds", "600", "--timer", "sit")
        first = b.wait(lambda: re.fullmatch(r"(10:00|9:[0-5]\d) \u25b6 Islet", self.title()) and self.title(), "running title")
        b.wait(lambda: self.title() != first, "the title ticks with the time", 3)
        self.ctl_ok(d, "pause", "--timer", "sit")
        shown = self.activity(d, "sit")["shown"]
        b.wait(lambda: self.title() == f"{shown} \u23f8 Islet", f"paused title {shown} \u23f8 Islet")
        # Two timers: the one the pill shows first.
        self.ctl_ok(d, "start", "--seconds", "120", "--timer", "tea")
        lead = wait_until("two shown", lambda: (d.status().get("shown_timers") or [None, None]), 3)
        a = self.activity(d, lead[0])
        mark = "\u25b6" if a["phase"] == "running" else "\u23f8"
        b.wait(lambda: self.title().endswith(f"{mark} Islet") and self.title().split(" ")[0] == self.browser.js(
            f"return document.querySelector(\"{ROW.format(lead[0])} .time\").textContent"), f"title follows {lead[0]}")
        got = self.title()
        self.ctl_ok(d, "end", "--dismissal", "immediate", "--timer", "sit")
        self.ctl_ok(d, "end", "--dismissal", "immediate", "--timer", "tea")
        b.wait(lambda: self.title() == "Islet", "idle again")
        figure(f"titles: {first!r}, paused {shown} \u23f8, two timers {got!r}, idle 'Islet'")

    def test_b_until_row_progress_and_verbs(self):
        d = self.daemon()
        b = self.browser.open(d.url)
        self.ctl_ok(d, "start", "--until", "+10", "--progress", "0.3", "--timer", "laundry", "--title", "Laundry", "--text", "Washing")
        li = ROW.format("laundry")
        b.wait(lambda: b.visible(li + " .progress"), "the until row's progress bar")
        self.assertEqual(b.attr(li + " .progress", "aria-valuenow"), "30")
        self.assertEqual(b.attr(li + " .progress", "role"), "progressbar")
        self.assertEqual(b.text(li + " .cycle"), "Washing")
        width = b.js(f"const e = document.querySelector(\"{li} .progress\"); return e.firstElementChild.getBoundingClientRect().width / e.getBoundingClientRect().width")
        self.assertAlmostEqual(width, 0.3, delta=0.02)
        offered = b.js(f"return [...document.querySelectorAll(\"{li} .ops button\")].filter((e) => e.offsetParent).map((e) => e.dataset.op)")
        self.assertEqual(sorted(offered), ["end", "expand", "reset"], "an until activity: only the verbs the table allows it")
        rows_of_ops = b.js(f"return new Set([...document.querySelectorAll(\"{li} .ops button\")].filter((e) => e.offsetParent).map((e) => Math.round(e.getBoundingClientRect().top))).size")
        self.assertEqual(rows_of_ops, 1, "the until row's buttons on one line, no lone End")
        self.assertTrue(d.request({"op": "update", "timer": "laundry", "progress": 0.75}).get("ok"))
        b.wait(lambda: b.attr(li + " .progress", "aria-valuenow") == "75", "progress 75")
        # A countdown: paused, Pause is off and Resume on; running, the other way round.
        self.ctl_ok(d, "start", "--seconds", "300", "--timer", "sit")
        self.ctl_ok(d, "pause", "--timer", "sit")
        cd = ROW.format("sit")
        state = lambda: b.js(f"return Object.fromEntries([...document.querySelectorAll(\"{cd} .ops button\")].map((e) => [e.dataset.op, e.disabled]))")
        b.wait(lambda: (b.row("sit") or {}).get("phase") == "paused" and state().get("pause") is True, "Pause off while paused")
        self.assertEqual(state(), {"pause": True, "resume": False, "toggle": False, "expand": False, "reset": False, "end": False})
        self.ctl_ok(d, "resume", "--timer", "sit")
        b.wait(lambda: state().get("resume") is True and state().get("pause") is False, "Resume off while running")
        # A mis-tap the page could not know of (the daemon moved first): its refusal by the row,
        # the pill and the Display card uncovered, gone within a few seconds.
        self.ctl_ok(d, "pause", "--timer", "sit")
        t0 = time.monotonic()
        b.js(f"const e = document.querySelector(\"{cd} [data-op='pause']\"); e.dataset.refused = 'false'; e.disabled = false; e.click();")
        b.wait(lambda: b.text(cd + " .row-err"), "the refusal by its row")
        self.assertEqual(b.text(cd + " .row-err"), "Already paused")
        self.assertEqual(b.text("#message"), "", "the refusal is not in the page-wide message")
        covered = b.js("""const r = document.getElementById('status').getBoundingClientRect(), p = document.getElementById('frame').getBoundingClientRect();
          const at = (x, y) => document.elementFromPoint(x, y);
          return [at(r.left + r.width / 2, r.top + 10), at(p.left + p.width / 2, p.top + p.height / 2)].map((e) => e && e.closest('#status, #frame') ? 'ok' : (e ? e.id || e.className : 'none'))""")
        self.assertEqual(covered, ["ok", "ok"], "the Display card and the pill are not covered")
        b.wait(lambda: not b.text(cd + " .row-err"), "the refusal goes", 6)
        gone = time.monotonic() - t0
        self.assertLess(gone, 6)
        figure(f"until row: progress 30% then 75%, verbs {sorted(offered)} on one line; refusal by the row, gone after {gone:.1f} s")

    def test_c_arabic_truncates_a_latin_title_at_its_end(self):
        d = self.daemon()
        title = "Morning sit by the window with the long title that cannot fit"
        self.ctl_ok(d, "start", "--seconds", "600", "--title", title)
        b = self.browser
        b.driver.set_window_size(390, 844)
        b.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        try:
            b.open(d.url + "/?lang=ar")
            b.wait(lambda: b.text("#list .name") == title, "the titled row")
            m = b.js("""const e = document.querySelector('#list .name'), box = e.getBoundingClientRect();
              const r = document.createRange(), n = e.firstChild, len = n.length;
              const span = (a, z) => { r.setStart(n, a); r.setEnd(n, z); return r.getBoundingClientRect(); };
              const first = span(0, 7), last = span(len - 5, len);
              return {dir: getComputedStyle(e).direction, page: document.documentElement.dir, clipped: e.scrollWidth > e.clientWidth,
                      box: [box.left, box.right], first: [first.left, first.right], last: [last.left, last.right]}""")
        finally:
            b.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
            b.driver.set_window_size(1280, 800)
        self.assertEqual(m["page"], "rtl")
        self.assertEqual(m["dir"], "ltr", "a Latin title runs left to right (dir=auto) in the Arabic page")
        self.assertTrue(m["clipped"], f"the title fits, nothing to test: {m}")
        self.assertGreaterEqual(m["first"][0], m["box"][0] - 0.5, f"the title's start is cut: {m}")
        self.assertLessEqual(m["first"][1], m["box"][1] + 0.5, f"the title's start is not inside its box: {m}")
        self.assertGreater(m["last"][1], m["box"][1], f"the title's end is inside the box, so its start went instead: {m}")
        figure(f"ar, 390 px: 'Morning' at x {m['first'][0]:.0f}-{m['first'][1]:.0f} inside the name's box "
               f"{m['box'][0]:.0f}-{m['box'][1]:.0f}; its last letters at {m['last'][0]:.0f}, past the box")

    def test_d_a_real_completion_and_alert_make_a_notification(self):
        d = self.daemon()
        b = self.browser
        b.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": d.url, "permissions": ["notifications"]})
        hook = b.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NOTIFICATION_HOOK + SOUND_HOOK})
        try:
            b.open(d.url)
            self.assertEqual(b.attr("#notify-note", "data-state"), "n_on", "granted on a secure origin (127.0.0.1)")
            b.click("#sound")
            b.wait(lambda: b.attr("#sound", "aria-pressed") == "true", "Sound on pressed")
            self.ctl_ok(d, "start", "--seconds", "60", "--timer", "sit")
            self.ctl_ok(d, "end", "--timer", "sit")
            self.ctl_ok(d, "start", "--seconds", "2", "--timer", "tea", "--title", "Tea")
            t0 = time.monotonic()
            notes = b.wait(lambda: b.js("return window.__notes"), "a Notification after the countdown's end", 6)
            took = time.monotonic() - t0
            self.assertEqual(notes, [{"title": "Tea", "body": "Complete", "tag": "islet-tea"}], "one, for the completion only (an end is none)")
            self.assertEqual(b.js("return window.__osc"), 2, "the chime's two notes, once")
            self.assertEqual(b.js("return window.__vib"), [[200, 100, 200]], "one vibration")
            b.click("#sound")
            b.wait(lambda: b.attr("#sound", "aria-pressed") == "false", "Sound off again")
            self.assertEqual(b.js("return localStorage.getItem('islet.sound')"), "off")
            self.ctl_ok(d, "start", "--until", "+10", "--timer", "laundry", "--title", "Laundry", "--text", "Washing")
            self.ctl_ok(d, "update", "--timer", "laundry", "--text", "Rinsing")
            self.ctl_ok(d, "update", "--timer", "laundry", "--text", "Done", "--alert")
            b.wait(lambda: len(b.js("return window.__notes")) == 2, "a Notification for the alert")
            self.assertEqual(b.js("return window.__notes")[1], {"title": "Laundry", "body": "Done", "tag": "islet-laundry"})
            # Without the permission the page constructs none and says why.
            b.driver.execute_cdp_cmd("Browser.resetPermissions", {})
            b.open(d.url)
            self.assertIn(b.attr("#notify-note", "data-state"), ("n_ask", "n_denied"))
            self.assertTrue(b.text("#notify-note"))
            self.ctl_ok(d, "start", "--seconds", "1", "--timer", "egg")
            wait_until("egg complete", lambda: (self.activity(d, "egg") or {}).get("phase") in ("complete", None), 4)
            time.sleep(0.5)
            self.assertEqual(b.js("return window.__notes"), [], "no Notification without the permission")
        finally:
            b.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": hook["identifier"]})
            b.driver.execute_cdp_cmd("Browser.resetPermissions", {})
        figure(f"Notification('Tea', 'Complete') {took:.2f} s after a 2 s countdown's start; Laundry 'Done' on its alert; none without the permission")

    def test_i_plain_http_on_a_name_says_notifications_need_https(self):
        """The page by a host name over plain HTTP is no secure context: no notification, and
        the page says so (chromium maps the name to 127.0.0.1; the daemon takes it by `hostnames`)."""
        from browser import Browser
        d = self.daemon(web={"hostnames": "islet.test"})
        b = Browser(args=("--host-resolver-rules=MAP islet.test 127.0.0.1",))
        try:
            b.open(f"http://islet.test:{d.port}/")
            self.assertFalse(b.js("return window.isSecureContext"))
            self.assertEqual(b.attr("#notify-note", "data-state"), "n_insecure")
            self.assertEqual(b.text("#notify-note"), "Notifications need HTTPS or localhost")
        finally:
            b.close()
        figure("http://islet.test: 'Notifications need HTTPS or localhost'")

    def test_e_night_card_through_brightness(self):
        d = self.daemon(extra="[display]\nnight = 00:00-12:00\nnight_contrast = 0\ncontrast = 200\n")
        b = self.browser.open(d.url)
        n0 = d.status()["status"]["night"]
        b.wait(lambda: b.visible("#night"), "the night card")
        want = f"{'day' if n0['night'] else 'night'} from {'12:00' if n0['night'] else '00:00'}"
        b.wait(lambda: want in (b.text("#night-when") or ""), f"'{want}' on the card")
        self.assertIn("00:00\u201312:00", b.text("#night-when"))
        filt = lambda: b.js("return getComputedStyle(document.getElementById('pill')).filter")
        steps = []
        for _ in range(2):
            before = d.status()["status"]["night"]["night"]
            b.click("#night-on")
            wait_until("status.night flips", lambda: d.status()["status"]["night"]["night"] != before, 3)
            n = d.status()["status"]["night"]
            self.assertEqual(n["source"], "override")
            if n["night"]:
                b.wait(lambda: filt() == "brightness(0.35)", "the canvas dimmed as the glass at contrast 0")
            else:
                b.wait(lambda: filt() == "none", "the canvas at full light by day")
            self.assertEqual(b.js("return document.getElementById('night-on').checked"), n["night"])
            # A request that already holds the next boundary's mode hands back to the schedule there.
            said = "schedule again from" if n["next_night"] == n["night"] else ("night from" if n["next_night"] else "day from")
            b.wait(lambda: f"{said} {n['next_local']}" in (b.text("#night-when") or ""), f"'{said} {n['next_local']}'")
            steps.append(f"night {n['night']} contrast {n['contrast']} filter {filt()}")
        # Night on, then the slider: contrast 128 through brightness, the canvas follows.
        if not d.status()["status"]["night"]["night"]:
            b.click("#night-on")
            wait_until("night on", lambda: d.status()["status"]["night"]["night"], 3)
        b.js("const s = document.getElementById('contrast'); s.value = '128'; s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change'));")
        wait_until("contrast 128", lambda: d.status()["status"]["night"]["contrast"] == 128, 3)
        b.wait(lambda: filt() == "brightness(0.68)", "the canvas at contrast 128")
        steps.append(f"slider 128: filter {filt()}")
        figure("night card: " + "; ".join(steps))

    def test_f_accessible_names_hold_their_timer(self):
        d = self.daemon()
        b = self.browser.open(d.url)
        self.ctl_ok(d, "start", "--seconds", "600", "--timer", "meditation")
        self.ctl_ok(d, "start", "--seconds", "300", "--timer", "tea")
        b.wait(lambda: len(b.rows()) == 2, "two rows")
        from selenium.webdriver.common.by import By
        names = {}
        for t in ("meditation", "tea"):
            for op in ("pause", "resume", "end"):
                e = b.driver.find_element(By.CSS_SELECTOR, f"{ROW.format(t)} button[data-op='{op}']")
                names[(t, op)] = e.accessible_name
        self.assertEqual(names[("meditation", "pause")], "Pause meditation")
        self.assertEqual(names[("tea", "pause")], "Pause tea")
        self.assertEqual(len(set(names.values())), len(names), f"names repeat: {names}")
        label = b.attr("#pill", "aria-label")
        self.assertEqual(b.attr("#pill", "role"), "img")
        shown = d.status().get("shown_timers")[0]
        self.assertRegex(label, rf"^\d+:\d\d, Running, {shown}$")
        b.wait(lambda: "Running" in (b.text("#pill-said") or ""), "the live region says the phase")
        quick = [e.accessible_name for e in b.driver.find_elements(By.CSS_SELECTOR, "#quick button")]
        self.assertEqual(quick, ["Start 5 minutes", "Start 10 minutes", "Start 20 minutes"])
        figure(f"names: {names[('meditation', 'pause')]!r}, {names[('tea', 'pause')]!r}; canvas {label!r}")

    def test_g_quick_starts_remember_the_last_lengths(self):
        d = self.daemon()
        b = self.browser.open(d.url)
        lengths = lambda: b.js("return [...document.querySelectorAll('#quick button')].map((e) => e.dataset.minutes)")
        self.assertEqual(lengths(), ["5", "10", "20"], "the defaults")
        b.click("#quick button[data-minutes='5']")
        wait_until("a 5 min countdown", lambda: (self.activity(d, "meditation") or {}).get("attributes", {}).get("cycle_seconds") == 300, 3)
        self.assertEqual(self.activity(d, "meditation")["attributes"].get("cycles"), 1)
        b.type("#minutes", "7")
        b.click("#start-go")
        wait_until("a 7 min countdown", lambda: (self.activity(d, "meditation") or {}).get("attributes", {}).get("cycle_seconds") == 420, 3)
        b.wait(lambda: lengths() == ["5", "7", "10"], "the last lengths first, a default to fill")
        self.assertEqual(b.js("return localStorage.getItem('islet.quick')"), "[7,5,10]")
        for bad in ('[1e9]', '"x"', '[5,5]', '[1,2,3,4]', '{"a":1}', '[null]', 'x' * 300):
            b.js("localStorage.setItem('islet.quick', arguments[0])", bad)
            b.open(d.url)
            self.assertEqual(lengths(), ["5", "10", "20"], f"stored {bad[:20]!r}: the defaults")
        figure("quick starts: 5, 10, 20; after 5 and 7: 5, 7, 10; seven bad stored values read as the defaults")

    def test_h_read_only_leaves_night_alone(self):
        d = self.daemon(web={"read_only": "on"}, extra="[display]\nnight = 00:00-12:00\n")
        b = self.browser.open(d.url)
        b.wait(lambda: b.visible("#night"), "the night card")
        b.wait(lambda: b.js("return document.getElementById('night-on').disabled && document.getElementById('contrast').disabled"),
               "the switch and the slider off")
        self.assertFalse(b.visible("#quick"), "no quick starts on a read-only page")
        before = d.status()["status"]["night"]
        r = d.curl("/api/request", method="POST", data='{"op":"brightness","night":true}',
                   headers=("Content-Type: application/json", f"Origin: {d.url}"))
        self.assertEqual((r.status, r.code), (403, "read_only"))
        self.assertEqual(d.status()["status"]["night"]["source"], before["source"])
        figure("read-only: night switch and contrast disabled, brightness 403 read_only")

    def test_j_sound_allowed_once_comes_back_at_the_first_tap(self):
        d = self.daemon()
        b = self.browser.open(d.url)
        b.js("localStorage.setItem('islet.sound', 'on')")
        b.open(d.url)
        self.assertEqual(b.attr("#sound", "aria-pressed"), "false", "no sound before a gesture")
        b.click("#timers-h")   # a tap anywhere that is not the button
        b.wait(lambda: b.attr("#sound", "aria-pressed") == "true", "the first tap allows the sound again")
        self.assertEqual(b.text("#sound"), "Sound is on")
        figure("islet.sound = on: Sound is on after the first tap anywhere")
