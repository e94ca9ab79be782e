"""`make test-web`: the Settings card (docs/WEB.md "Settings", "Backup") in a real browser.

(s1) a setting changed on the page reaches the panel (its 81h contrast on the mock bus, the
toggle's session on the canvas) and survives a restart; (s2) a refused value shows the parser's
own message beside its field and changes nothing; (s3) backup, then reset, then restore gives
the same settings; (s4) a bad, oversized or newer backup, or one with a value the file refuses,
changes nothing; (s5) read_only: the card shows the values, disabled, and every settings op but
`settings` is 403; (s6) a backup with the running activities round-trips through a reset (the
backup's activities replace the running ones); (s7) a setting changed from isletctl shows up in
the open card (the events stream's `settings` notice); (s8) isletctl settings export --activities
and import; (s9) on a phone, in English and Arabic, the open card fits the screen's width (the
restore's hidden file input once made the page 33 px wider than a 390 px phone); (s10) the card,
which settings.js brings with its English when first opened, speaks the page's language whether
that language's words came before it (Arabic from the start) or after (Spanish chosen later).
"""
import json
import os
import shutil
import tempfile
import time

import browser as browser_mod
from case import WebCase, figure

JSON = "Content-Type: application/json"
WORDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "IsletWeb", "Assets", "words.js")
REFUSED = 'session.minutes = "2000" is not valid; accepted: a number from 0.05 to 1440'


class Settings(WebCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="islet-settings-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    # -- the page ---------------------------------------------------------------------------
    def open_settings(self, d):
        b = self.browser.open(d.url)
        b.js("document.querySelector('#settings summary').scrollIntoView({block: 'center'});")
        b.click("#settings summary")
        b.wait(lambda: b.js("return document.querySelectorAll('#settings-fields .set-row').length") == 10,
               "the ten settings in the Settings card")
        return b

    def field(self, key):
        return "#set-" + key.replace(".", "-")

    def row(self, key):
        return self.browser.js("""
            const r = document.querySelector('.set-row[data-key="' + arguments[0] + '"]');
            if (!r) return null;
            const i = r.querySelector('input, select');
            return {value: i.value, source: r.dataset.source, error: r.querySelector('.set-error').textContent,
                    reset: !r.querySelector('.set-reset').hidden, label: i.labels[0] ? i.labels[0].textContent : '',
                    resetName: r.querySelector('.set-reset').getAttribute('aria-label'), dir: i.dir};""", key)

    def enter(self, key, text):
        """Types `text` into the field as a person does, then Enter (its change is sent)."""
        from selenium.webdriver.common.keys import Keys
        b = self.browser
        from selenium.webdriver.common.by import By
        # Select all and type over it, as a person does: WebDriver's clear() fires a change of
        # its own (an empty value sent), which a person's editing never does.
        e = b.driver.find_element(By.CSS_SELECTOR, self.field(key))
        e.send_keys(Keys.CONTROL, "a")
        e.send_keys(text)
        e.send_keys(Keys.ENTER)

    def choose(self, key, value):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select
        Select(self.browser.driver.find_element(By.CSS_SELECTOR, self.field(key))).select_by_value(value)

    def press(self, selector):
        """A click as a person makes it: the control scrolled to the middle first (the sticky
        header would take a click at the top edge)."""
        self.browser.js("document.querySelector(arguments[0]).scrollIntoView({block: 'center'});", selector)
        self.browser.click(selector)

    def daemon_settings(self, d):
        r = d.ctl("settings", "--json")
        self.assertEqual(r.returncode, 0, f"isletctl settings --json: {r.stderr.decode(errors='replace')}")
        return {e["key"]: (e["value"], e["source"]) for e in json.loads(r.stdout)["settings"]["keys"]}

    def contrasts(self, capture):
        """The 81h values sent on the mock bus, in order (command lines: control byte 00)."""
        out = []
        try:
            with open(capture) as f:
                for line in f:
                    p = line.split()
                    if len(p) >= 5 and p[2] == "00":
                        out += [int(p[i + 1], 16) for i in range(3, len(p) - 1) if p[i] == "81"]
        except FileNotFoundError:
            pass
        return out

    # -- the cases --------------------------------------------------------------------------
    def test_s1_a_setting_reaches_the_panel_and_survives_a_restart(self):
        capture = os.path.join(self.tmp, "bus.txt")
        d = self.daemon(extra=f"[display]\ncapture = {capture}\n[session]\nminutes = 20\n")
        b = self.open_settings(d)
        self.assertEqual(self.row("session.minutes")["source"], "file", f"minutes: {self.row('session.minutes')}")
        self.assertEqual(self.row("display.contrast")["source"], "default")
        t0 = time.monotonic()
        self.enter("display.contrast", "90")
        b.wait(lambda: (self.row("display.contrast") or {}).get("source") == "page", "contrast from the page")
        b.wait(lambda: self.contrasts(capture)[-1:] == [90], "81h 5Ah on the mock bus", timeout=3)
        reach_ms = (time.monotonic() - t0) * 1000
        row = self.row("display.contrast")
        self.assertTrue(row["reset"], f"a page value without its reset button: {row}")
        self.assertIn("Contrast", row["resetName"], f"the reset button's name: {row}")
        self.assertEqual(row["dir"], "auto")
        # The default session: a toggle from idle starts the page's 7 minutes, on the glass.
        self.enter("session.minutes", "7")
        b.wait(lambda: (self.row("session.minutes") or {}).get("source") == "page", "minutes from the page")
        self.choose("session.kind", "countdown")
        r = d.request({"op": "toggle"})
        self.assertTrue(r.get("ok"), f"toggle: {r}")
        remaining = r["activities"][0].get("remaining_seconds")
        self.assertTrue(400 < remaining <= 420, f"toggle started {remaining} s, not the page's 7 minutes")
        b.wait(lambda: b.row("meditation"), "the toggled timer's row")
        self.assertTrue((b.row("meditation")["time"] or "").startswith(("7:00", "6:5")), f"row: {b.row('meditation')}")
        self.canvas_is_panel(d, "after toggle with the page's session")
        # A restart: the overlay is read back; the init sequence carries the page's contrast.
        d.stop()
        os.remove(capture)
        d.start()
        self.open_settings(d)
        s = self.daemon_settings(d)
        self.assertEqual((s["display.contrast"], s["session.minutes"]), (("90", "page"), ("7", "page")), f"after restart: {s}")
        self.assertEqual(self.row("display.contrast")["value"], "90")
        b.wait(lambda: 90 in self.contrasts(capture), "81h 5Ah in the restarted daemon's init", timeout=3)
        self.assertNotIn(0xCF, self.contrasts(capture), "the module's own contrast was sent after the restart")
        figure(f"a contrast typed on the page reached the bus in {reach_ms:.0f} ms; it and the 7-minute session survive a restart")

    def test_s2_a_refused_value_shows_the_parsers_message(self):
        d = self.daemon()
        b = self.open_settings(d)
        self.enter("session.minutes", "2000")
        b.wait(lambda: (self.row("session.minutes") or {}).get("error") == REFUSED, "the parser's message beside minutes")
        self.assertEqual(self.row("session.minutes")["value"], "2000", "the refused text was replaced")
        self.assertEqual(b.attr(self.field("session.minutes"), "aria-invalid"), "true")
        self.assertEqual(self.daemon_settings(d)["session.minutes"], ("20", "default"))
        self.enter("display.night", "25:00-01:00")
        b.wait(lambda: "display.night" in ((self.row("display.night") or {}).get("error") or ""), "the night window's refusal")
        self.enter("session.minutes", "12")
        b.wait(lambda: (self.row("session.minutes") or {}).get("error") == "", "the message gone once a good value is taken")
        self.assertEqual(self.daemon_settings(d)["session.minutes"], ("12", "page"))
        figure("2000 minutes: the parser's own words beside the field, nothing changed")

    def backup_text(self):
        b = self.browser
        from urllib.parse import unquote
        prefix = "data:application/json;charset=utf-8,"
        b.js("document.querySelector('#settings-download').href = '#';")
        self.press("#settings-backup")
        href = b.wait(lambda: (b.attr("#settings-download", "href") or "").startswith(prefix) and b.attr("#settings-download", "href"),
                      "the backup's download")
        return unquote(href[len(prefix):])

    def upload(self, name, text):
        from selenium.webdriver.common.by import By
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        b = self.browser
        b.js("document.querySelector('#settings-result').textContent = ''; delete document.querySelector('#settings-result').dataset.ok;")
        b.driver.find_element(By.CSS_SELECTOR, "#settings-restore").send_keys(path)
        b.wait(lambda: b.attr("#settings-result", "data-ok") in ("true", "false") and b.text("#settings-result"), f"the result of restoring {name}")
        return b.attr("#settings-result", "data-ok") == "true", b.text("#settings-result")

    def test_s3_backup_reset_restore_gives_the_same_settings(self):
        d = self.daemon()
        b = self.open_settings(d)
        self.enter("session.minutes", "25")
        self.enter("display.night", "22:30-07:00")
        self.choose("display.night_idle", "on")
        b.wait(lambda: self.daemon_settings(d)["display.night_idle"] == ("on", "page"), "night_idle from the page")
        before = self.daemon_settings(d)
        text = self.backup_text()
        self.assertTrue(text.startswith("{"), f"the downloaded backup: {text!r}")
        backup = json.loads(text)
        self.assertEqual(backup.get("islet_backup"), 1, f"backup: {text}")
        self.assertEqual(backup["settings"], {"session.minutes": "25", "display.night": "22:30-07:00", "display.night_idle": "on"})
        for key in ("session.minutes", "display.night", "display.night_idle"):
            # Its answer too, not only the card's new values (the event stream's notice can bring
            # those first), so no late "Saved" stands where the restore's result is read.
            b.js("document.querySelector('#settings-result').textContent = ''; delete document.querySelector('#settings-result').dataset.ok;")
            self.press(f'.set-row[data-key="{key}"] .set-reset')
            b.wait(lambda key=key: (self.row(key) or {}).get("source") != "page" and b.attr("#settings-result", "data-ok") == "true",
                   f"{key} reset")
        self.assertEqual(self.daemon_settings(d)["session.minutes"], ("20", "default"))
        ok, said = self.upload("backup.json", text)
        self.assertTrue(ok, f"restore refused: {said}")
        self.assertIn("3", said, f"the result does not count the settings: {said}")
        self.assertEqual(self.daemon_settings(d), before)
        b.wait(lambda: (self.row("display.night") or {}).get("value") == "22:30-07:00", "the restored night window on the page")
        figure(f"backup ({len(text)} bytes) → reset → restore: the same {len(before)} settings")

    def test_s4_a_bad_oversized_or_newer_backup_changes_nothing(self):
        d = self.daemon()
        b = self.open_settings(d)
        self.enter("session.minutes", "25")
        b.wait(lambda: self.daemon_settings(d)["session.minutes"] == ("25", "page"), "minutes from the page")
        before = self.daemon_settings(d)
        cases = [
            ("garbage.json", "this is not JSON", "not valid JSON"),
            ("big.json", '{"islet_backup":1,"settings":{}}' + " " * 17000, "16384"),
            ("huge.json", '{"islet_backup":1,"settings":{}}' + " " * 30000, "16384"),
            ("newer.json", '{"islet_backup":3,"settings":{"session.minutes":"5"}}', "version 3"),
            ("activities.json", '{"islet_backup":2,"settings":{"session.minutes":"5"},"activities":[{"attributes":{}}]}', "activities[0]"),
            ("refused.json", '{"islet_backup":1,"settings":{"session.minutes":"5","display.contrast":"300"}}', "display.contrast"),
            ("twice.json", '{"islet_backup":1,"settings":{"session.minutes":"5","session.minutes":"6"}}', "twice"),
            ("bus.json", '{"islet_backup":1,"settings":{"display.bus":"/dev/i2c-0"}}', "not a setting"),
        ]
        said_all = []
        for name, text, why in cases:
            ok, said = self.upload(name, text)
            self.assertFalse(ok, f"{name} was restored: {said}")
            self.assertIn(why, said, f"{name}: the result does not say why: {said}")
            self.assertEqual(self.daemon_settings(d), before, f"{name} changed the settings")
            said_all.append(name)
        self.assertEqual(self.row("session.minutes")["value"], "25")
        figure(f"refused, nothing changed: {', '.join(said_all)}")

    def test_s4b_a_valid_backup_padded_with_newlines_restores(self):
        """12 KiB of newlines would be 24 KiB escaped in the request: the page sends it compacted."""
        d = self.daemon()
        self.open_settings(d)
        text = '{\n' + "\n" * 12000 + '"islet_backup": 1,\n"settings": {"session.minutes": "17"}\n}\n'
        self.assertTrue(8 * 1024 < len(text) <= 16384)
        ok, said = self.upload("padded.json", text)
        self.assertTrue(ok, f"the padded backup was refused: {said}")
        self.assertEqual(self.daemon_settings(d)["session.minutes"], ("17", "page"))
        figure(f"a valid backup of {len(text)} bytes, mostly newlines, restored from the page")

    def test_s5_read_only_shows_the_card_disabled_and_refuses_every_change(self):
        d = self.daemon({"read_only": "on"}, extra="[session]\nminutes = 30\n")
        b = self.browser.open(d.url)
        b.wait(lambda: b.js("return document.body.classList.contains('ro')"), "body.ro")
        self.assertTrue(b.visible("#settings"), "read only: the Settings card is hidden")
        b.js("document.querySelector('#settings summary').scrollIntoView({block: 'center'});")
        b.click("#settings summary")
        b.wait(lambda: b.js("return document.querySelectorAll('#settings-fields .set-row').length") == 10, "the ten settings, read only")
        self.assertEqual(self.row("session.minutes")["value"], "30", f"minutes: {self.row('session.minutes')}")
        enabled = b.js("return [...document.querySelectorAll('#settings-fields input, #settings-fields select')].filter(e => !e.disabled).length")
        self.assertEqual(enabled, 0, "read only: a settings field can be edited")
        for sel in ("#settings-backup", "#settings-restore-btn", "#settings-activities"):
            self.assertFalse(b.visible(sel), f"read only: {sel} is shown")
        r = d.curl("/api/request", method="POST", data=json.dumps({"op": "settings"}), headers=(JSON, f"Origin: {d.url}"))
        self.assertEqual(r.status, 200, f"read only, settings: {r}")
        for req in ({"op": "settings_set", "key": "session.minutes", "value": "5"},
                    {"op": "settings_reset", "key": "session.minutes"}, {"op": "settings_export"},
                    {"op": "settings_export", "activities": True},
                    {"op": "settings_import", "backup": '{"islet_backup":1}'}):
            r = d.curl("/api/request", method="POST", data=json.dumps(req), headers=(JSON, f"Origin: {d.url}"))
            self.assertEqual((r.status, r.code), (403, "read_only"), f"read only, {req['op']}: {r}")
        r = d.curl("/api/request", method="POST", data=json.dumps({"op": "settings_set", "key": "session.minutes", "value": "5"}),
                   headers=(JSON, "Origin: http://evil.example"))
        self.assertEqual(r.status, 403, f"cross-origin settings_set: {r}")
        self.assertEqual(self.daemon_settings(d)["session.minutes"], ("30", "file"))
        figure("read only: the card shows the values, disabled; settings_set, settings_reset, settings_export, settings_import all 403")

    def test_s6_a_backup_with_activities_round_trips_through_reset(self):
        d = self.daemon()
        for timer, seconds in (("tea", 300), ("run", 900)):
            self.assertTrue(d.request({"op": "start", "timer": timer, "seconds": seconds}).get("ok"), f"start {timer}")
        b = self.open_settings(d)
        self.enter("session.minutes", "25")
        b.wait(lambda: self.daemon_settings(d)["session.minutes"] == ("25", "page"), "minutes from the page")
        before = self.daemon_settings(d)
        self.press("#settings-activities")
        text = self.backup_text()
        backup = json.loads(text)
        self.assertEqual(backup.get("islet_backup"), 2, f"backup: {text[:200]}")
        self.assertEqual(sorted(a["attributes"]["timer"] for a in backup["activities"]), ["run", "tea"])
        # Reset: the setting back to its default, one timer ended, another started.
        self.press('.set-row[data-key="session.minutes"] .set-reset')
        b.wait(lambda: self.daemon_settings(d)["session.minutes"] == ("20", "default"), "minutes reset")
        self.assertTrue(d.request({"op": "end", "timer": "tea"}).get("ok"))
        self.assertTrue(d.request({"op": "start", "timer": "other", "seconds": 60}).get("ok"))
        b.wait(lambda: b.row("other"), "the other timer's row")
        ok, said = self.upload("with-activities.json", text)
        self.assertTrue(ok, f"restore refused: {said}")
        self.assertIn("2", said, f"the result does not count the activities: {said}")
        self.assertEqual(self.daemon_settings(d), before)
        timers = lambda: sorted(a.get("timer") for a in d.activities())
        b.wait(lambda: timers() == ["run", "tea"], f"the backup's activities running (now {timers()})")
        b.wait(lambda: b.row("tea") and b.row("run") and not b.row("other"), "the page's rows are the backup's")
        self.canvas_is_panel(d, "after a restore with activities")
        figure(f"a backup with 2 activities ({len(text)} bytes) → reset → restore: the same settings and timers")

    def test_s7_a_change_from_isletctl_shows_in_the_open_card(self):
        d = self.daemon()
        b = self.open_settings(d)
        self.assertEqual(self.row("session.minutes")["value"], "20")
        t0 = time.monotonic()
        self.ctl_ok(d, "settings", "set", "session.minutes", "33")
        b.wait(lambda: (self.row("session.minutes") or {}).get("value") == "33", "isletctl's value in the open card")
        ms = (time.monotonic() - t0) * 1000
        self.assertEqual(self.row("session.minutes")["source"], "page")
        self.ctl_ok(d, "settings", "reset", "session.minutes")
        b.wait(lambda: (self.row("session.minutes") or {}).get("source") == "default", "isletctl's reset in the open card")
        figure(f"a setting changed by isletctl showed in the open card in {ms:.0f} ms (isletctl's run included)")

    def test_s8_isletctl_export_activities_and_import(self):
        d = self.daemon()
        self.assertTrue(d.request({"op": "start", "timer": "tea", "seconds": 300}).get("ok"))
        path = os.path.join(self.tmp, "from-shell.json")
        r = self.ctl_ok(d, "settings", "export", path, "--activities")
        self.assertIn("running activities", r.stdout.decode(), r.stdout)
        with open(path) as f:
            backup = json.load(f)
        self.assertEqual((backup["islet_backup"], [a["attributes"]["timer"] for a in backup["activities"]]), (2, ["tea"]))
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertTrue(d.request({"op": "end", "timer": "tea", "dismissal": "immediate"}).get("ok"))
        self.assertTrue(d.request({"op": "start", "timer": "other", "seconds": 60}).get("ok"))
        self.ctl_ok(d, "settings", "import", path)
        self.assertEqual(sorted(a.get("timer") for a in d.activities()), ["tea"])
        # A bad activity: refused by name, exit 1, nothing changed.
        backup["activities"][0]["started_at"] = "yesterday"
        with open(path, "w") as f:
            json.dump(backup, f)
        r = d.ctl("settings", "import", path)
        self.assertEqual(r.returncode, 1, r)
        self.assertIn("started_at", r.stderr.decode(), r.stderr)
        self.assertEqual(sorted(a.get("timer") for a in d.activities()), ["tea"])
        figure("isletctl settings export --activities, then import: the backup's timer replaces the running one; a bad one: exit 1, named")

    def test_s9_the_open_card_fits_a_phone_in_english_and_arabic(self):
        d = self.daemon()
        phone = browser_mod.Browser(390, 844, scale=2, mobile=True)
        self.addCleanup(phone.close)
        widths = {}
        for lang in ("en", "ar"):
            phone.open(f"{d.url}/?lang={lang}")
            phone.wait(lambda: phone.js("return document.documentElement.lang") == lang, f"the page in {lang}")
            phone.js("document.querySelector('#settings summary').click()")
            phone.wait(lambda: phone.js("return document.querySelectorAll('#settings-fields .set-row').length") == 10,
                       "the ten settings in the Settings card")
            widths[lang] = phone.js("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        figure(f"a 390 px phone with the Settings card open: page width {widths}")
        for lang, (scroll, client) in widths.items():
            self.assertLessEqual(scroll, client, f"{lang}: the page is {scroll} px wide on a {client} px phone")

    def test_s10_the_card_speaks_the_pages_language_whichever_words_came_first(self):
        with open(WORDS, encoding="utf-8") as f:
            lines = f.read().splitlines()
        langs = json.loads(next(ln for ln in lines if ln.startswith("langs: "))[len("langs: "):].rstrip(","))
        words = {ln.split(":", 1)[0]: ln.split(": ", 1)[1].rstrip(",").strip('"').split("|")
                 for ln in lines if ln.startswith("s_") and ": \"" in ln}

        def said(lang):
            i = langs.index(lang)
            return {k: words[k][i] for k in ("s_where", "s_with_activities", "s_reset", "s_display_contrast", "s_src_default")}

        def seen(b):
            return b.js("""
              const row = document.querySelector('.set-row[data-key="display.contrast"]');
              return {s_where: document.querySelector('#settings [data-w="s_where"]').textContent,
                      s_with_activities: document.querySelector('#settings [data-w="s_with_activities"]').textContent,
                      s_reset: row.querySelector('.set-reset').textContent,
                      s_display_contrast: row.querySelector('.set-label').textContent,
                      s_src_default: row.querySelector('.set-source').textContent};""")

        d = self.daemon()
        b = self.browser.open(f"{d.url}/?lang=ar")
        b.wait(lambda: b.js("return document.documentElement.lang") == "ar", "the page in Arabic")
        b.js("document.querySelector('#settings summary').click()")
        b.wait(lambda: b.js("return document.querySelectorAll('#settings-fields .set-row').length") == 10, "the ten settings")
        b.wait(lambda: seen(b) == said("ar"), f"the card in Arabic: {seen(b)}")
        for lang in ("es", "en"):
            b.js(f"const s = document.querySelector('#lang'); s.value = '{lang}'; s.dispatchEvent(new Event('change'));")
            b.wait(lambda: seen(b) == said(lang), f"the card in {lang}: {seen(b)}")
        figure(f"the Settings card in Arabic (its words before settings.js), then Spanish (after), then English: "
               f"{said('es')['s_where'][:30]}… / {said('en')['s_where'][:30]}…")
