"""`make test-web`: the page in a real browser against isletd on the mock bus (docs/WEB.md).

(a) the canvas is the emulated panel, pixel for pixel, through start, pause, expand, a
stopwatch and two timers (minimal); (b) a click on Pause pauses the daemon and the page shows
the frozen time; (c) a change made with isletctl reaches the open page within 1 s; (g) the
Arabic page runs right to left with left-to-right ASCII times.
"""
import time

from case import WebCase, figure
from testkit.wait import elapsed_until, wait_until

REACH_S = 1.0   # a change made at the socket is on the open page within this


class Page(WebCase):
    def test_a_canvas_is_the_panel(self):
        d = self.daemon(extra="[display]\nexpand_seconds = 2\n")
        b = self.browser.open(d.url)
        figures = []

        def check(when, presentation=None):
            status, lit = self.canvas_is_panel(d, when)
            if presentation:
                self.assertEqual(status.get("presentation"), presentation,
                                 f"{when}: the daemon's presentation is {status.get('presentation')!r}, "
                                 f"the case means {presentation!r}")
            figures.append(f"{when} {lit} lit")
            return status, lit

        check("idle")
        self.ctl_ok(d, "start", "--seconds", "600")
        _, lit = check("started", "compact")
        self.assertGreater(lit, 0, "a running countdown lights no pixel of the panel")
        self.ctl_ok(d, "pause")
        check("paused", "compact")
        r = d.request({"op": "expand"})
        self.assertTrue(r.get("ok"), f"expand: {r}")
        check("expanded", "expanded")
        wait_until("the expanded view ends (expand_seconds = 2)", lambda: d.status().get("presentation") == "compact", 5)
        check("expand over", "compact")
        self.ctl_ok(d, "end", "--dismissal", "immediate")
        self.ctl_ok(d, "start", "--stopwatch", "--timer", "sw")
        time.sleep(1.2)   # a second on: the stopwatch has ticked once
        check("stopwatch", "compact")
        self.ctl_ok(d, "start", "--seconds", "300", "--timer", "two")
        status, _ = check("two timers", "minimal")
        self.assertEqual(sorted(status.get("shown_timers") or []), ["sw", "two"], f"shown timers: {status.get('shown_timers')}")
        self.assertNotEqual(b.text("#presentation"), "", "#presentation is empty with two timers")
        figure("canvas = panel: " + "; ".join(figures))

    def test_b_pause_click_shows_the_frozen_time(self):
        d = self.daemon()
        b = self.browser.open(d.url)
        t_start = time.monotonic()
        self.ctl_ok(d, "start", "--seconds", "5")
        b.wait(lambda: b.row("meditation"), "the row of the started timer")
        time.sleep(1.2)
        b.click('#list button[data-op="pause"][data-timer="meditation"]')
        waited = elapsed_until(lambda: (self.activity(d, "meditation") or {}).get("phase") == "paused", 3.0)
        a = self.activity(d, "meditation")
        self.assertIsNotNone(waited, f"a click on Pause did not pause the daemon within 3 s: {a}")
        shown = a["shown"]
        b.wait(lambda: (b.row("meditation") or {}).get("phase") == "paused", "the row shows paused")
        # Watch the frozen time for 2.5 s, and past the moment the countdown would have ended.
        samples, t0 = [], time.monotonic()
        while time.monotonic() - t0 < 2.5 or time.monotonic() - t_start < 6.0:
            samples.append(b.row("meditation")["time"])
            time.sleep(0.1)
        after = self.activity(d, "meditation")
        figure(f"paused by a click after {waited * 1000:.0f} ms; daemon shows {shown!r}; "
               f"{len(samples)} samples over {time.monotonic() - t0:.1f} s: {sorted(set(samples))}")
        self.assertEqual(after["phase"], "paused", f"the daemon left paused: {after}")
        self.assertEqual(after["shown"], shown, f"the daemon's frozen time moved: {shown!r} -> {after['shown']!r}")
        self.assertNotIn("0:00", samples, f"the paused page showed 0:00: {samples}")
        self.assertEqual(set(samples), {shown}, f"the paused page's .time is not the daemon's frozen {shown!r}: {samples}")

    def test_c_isletctl_reaches_the_open_page(self):
        d = self.daemon()
        b = self.browser.open(d.url)
        steps = []
        for args, what, pred in (
                (("start", "--seconds", "600", "--timer", "c1"), "row c1 appears",
                 lambda: (b.row("c1") or {}).get("phase") == "running"),
                (("pause", "--timer", "c1"), "row c1 paused", lambda: (b.row("c1") or {}).get("phase") == "paused"),
                (("resume", "--timer", "c1"), "row c1 running", lambda: (b.row("c1") or {}).get("phase") == "running"),
                (("end", "--dismissal", "immediate", "--timer", "c1"), "row c1 gone", lambda: b.row("c1") is None)):
            t0 = time.monotonic()
            self.ctl_ok(d, *args)
            took = elapsed_until(pred, 3.0, since=t0)
            steps.append(f"{what} {'not within 3 s' if took is None else f'{took * 1000:.0f} ms'}")
            self.assertIsNotNone(took, f"isletctl {' '.join(args)}: {what} did not happen on the page within 3 s; "
                                       f"rows {b.rows()}")
            self.assertLess(took, REACH_S, f"isletctl {' '.join(args)}: {what} took {took:.2f} s (bound {REACH_S} s)")
        figure("isletctl to the page (from the command's start): " + "; ".join(steps))

    def test_j_an_until_activity_reads_as_its_source_says(self):
        """A pushed activity's row: its title, its status text where a cycle would be, its time to
        the source's end (ticking like a countdown's) or its progress, and no pause or resume."""
        d = self.daemon()
        b = self.browser.open(d.url)
        self.ctl_ok(d, "start", "--until", "+10", "--timer", "laundry", "--title", "Laundry", "--icon", "laundry",
                    "--text", "Washing")
        b.wait(lambda: (b.row("laundry") or {}).get("kind") == "until", "the laundry's row")
        li = "#list > li.act[data-timer='laundry']"
        self.assertEqual(b.text(li + " .name"), "Laundry")
        self.assertEqual(b.text(li + " .cycle"), "Washing")
        self.assertFalse(b.js(f"return document.querySelector(\"{li} [data-op='pause']\").offsetParent !== null"),
                         "an until activity offers Pause")
        first = b.row("laundry")["time"]
        self.assertRegex(first, r"^(10:00|9:[0-5][0-9])$")
        b.wait(lambda: b.row("laundry")["time"] != first, "the time to the source's end ticks", 3)
        # Progress only: the row shows what the glass shows.
        self.assertTrue(d.request({"op": "update", "timer": "laundry", "ends_at": None, "progress": 0.42, "text": "Rinsing"}).get("ok"))
        b.wait(lambda: b.row("laundry")["time"] == "42%", "42% on the row")
        self.assertEqual(b.text(li + " .cycle"), "Rinsing")
        self.assertEqual(self.activity(d, "laundry")["shown"], "42%")
        figure("until row: Laundry, Washing, then 42% Rinsing")

    def test_g_arabic_right_to_left_with_ascii_times(self):
        d = self.daemon()
        self.ctl_ok(d, "start", "--seconds", "4000", "--title", "تأمل")
        self.ctl_ok(d, "start", "--stopwatch", "--timer", "sw")
        b = self.browser.open(d.url + "/?lang=ar")
        b.wait(lambda: len(b.rows()) == 2, "two rows")
        root = b.js("return [document.documentElement.getAttribute('dir'), document.documentElement.lang]")
        self.assertEqual(root, ["rtl", "ar"], f"<html> dir/lang under ?lang=ar: {root}")
        start = b.text("#start-go")
        self.assertRegex(start, "[\u0600-\u06ff]", f"the Start button is not in Arabic: {start!r}")
        for _ in range(3):   # across a tick: the running times are redrawn by the script
            times = b.js("return [...document.querySelectorAll('.time')].map((e) => "
                         "[e.textContent, getComputedStyle(e).direction, e.closest('li').dataset.timer])")
            self.assertEqual(len(times), 2, f".time elements: {times}")
            for text, direction, timer in times:
                self.assertEqual(direction, "ltr", f"{timer}: .time has computed direction {direction}")
                self.assertRegex(text, r"^[0-9:]+$", f"{timer}: .time {text!r} holds more than ASCII digits and ':'")
                self.assertRegex(text, r"^\d+:\d\d(:\d\d)?$", f"{timer}: .time {text!r} is not a clock")
            time.sleep(0.6)
        figure(f"?lang=ar: dir rtl, Start is {start!r}, times {[t[0] for t in times]}")
