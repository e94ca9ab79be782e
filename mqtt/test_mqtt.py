"""`make test-mqtt`: isletd's MQTT bridge (docs/MQTT.md) against a real broker (Debian's mosquitto):
state pushes, commands and their guarantees, `--check-config`. The connection's life (last will,
broker restarts, refusals, ACL, TLS): test_mqtt_connection.py; a black-holed broker and the
wake-ups: test_mqtt_blackhole.py.

Every case starts its own mosquitto on a free 127.0.0.1 port (testkit/broker.py) and its own
isletd on the mock bus (testkit/daemon.py), through mqtt/mqttcase.py's MQTTCase. Nothing else
is contacted. Measured figures are printed as "figure: ..." lines and again in a summary when
the module ends.

Run: python3 -m unittest discover -s mqtt -p 'test_*.py' -v
"""
import json
import os
import time
import unittest

from mqttcase import MQTTCase, figure, payload_json, require, stable, tearDownModule  # noqa: F401
from testkit.daemon import Daemon, check_config


def setUpModule():
    require()


class StatePush(MQTTCase):
    def test_each_op_pushed_and_retained_for_a_late_subscriber(self):
        d = self.daemon()
        topic = d.topic("activity/meditation")
        live = self.broker.listen([topic])
        self.addCleanup(live.stop)
        self.assertEqual(self.broker.retained([topic]), {}, "an idle timer has a retained activity")
        for op, phase in (("start", "running"), ("pause", "paused"), ("resume", "running"), ("reset", None)):
            mark = live.mark()
            t0 = time.monotonic()
            req = {"op": op, "seconds": 600} if op == "start" else {"op": op}
            answer = d.request(req)
            self.assertTrue(answer.get("ok"), answer)
            m = live.wait_for(lambda m: True, timeout=5, start=mark)
            self.assertIsNotNone(m, f"nothing pushed on {topic} after {op}")
            pushed_after = time.monotonic() - t0
            late = self.broker.retained([topic])
            if phase is None:
                self.assertEqual(m.payload, b"", f"after reset the push is not the clearing empty payload: {m}")
                self.assertEqual(late, {}, f"after reset a late subscriber still gets a retained activity: {late}")
                self.assertEqual(d.status()["activities"], [])
            else:
                pushed = payload_json(m)
                self.assertEqual(pushed["phase"], phase, pushed)
                mine = [a for a in answer["activities"] if a["timer"] == "meditation"][0]
                self.assertEqual(stable(pushed), stable(mine), "the pushed activity is not the one the socket reports")
                self.assertIn(topic, late, f"a late subscriber got no retained activity after {op}")
                retained = json.loads(late[topic])
                self.assertEqual(stable(retained), stable(mine))
                if phase == "paused":
                    self.assertEqual(retained, mine, "a paused activity is frozen: the retained one must equal the answer")
            figure(f"{op}: pushed {pushed_after * 1000:.0f} ms after the request was sent")
        # One message a transition, not one a second: nothing more arrived meanwhile.
        self.assertEqual(len(live.messages), 4, f"expected 4 pushes (start, pause, resume, reset): {live.messages}")

    def test_a_running_timer_is_not_republished_every_second(self):
        d = self.daemon()
        topic = d.topic("activity/meditation")
        live = self.broker.listen([topic])
        self.addCleanup(live.stop)
        d.request({"op": "start", "seconds": 600})
        self.assertIsNotNone(live.wait_for(lambda m: True, timeout=5))
        time.sleep(2.5)
        self.assertEqual(len(live.messages), 1, f"a running timer was pushed again: {live.messages}")


class Commands(MQTTCase):
    def test_command_round_trip_with_request_id(self):
        d = self.daemon()
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        t0 = time.monotonic()
        self.broker.pub(d.topic("command"), json.dumps({"op": "start", "seconds": 600, "request_id": "r-start-1"}))
        m = responses.wait_for(lambda m: True, timeout=5)
        rtt = time.monotonic() - t0
        self.assertIsNotNone(m, "no answer on the response topic")
        r = json.loads(m.payload)
        self.assertEqual(r.get("request_id"), "r-start-1", r)
        self.assertTrue(r.get("ok"), r)
        self.assertEqual([a["phase"] for a in r["activities"] if a["timer"] == "meditation"], ["running"])
        self.assertRunning(d)
        # The same answer as the socket's, for a read-only request.
        mark = responses.mark()
        self.broker.pub(d.topic("command"), json.dumps({"op": "status", "request_id": "s1"}))
        m = responses.wait_for(lambda m: True, timeout=5, start=mark)
        self.assertIsNotNone(m)
        r = json.loads(m.payload)
        self.assertEqual((r.get("request_id"), r.get("ok")), ("s1", True), r)
        self.assertEqual(stable(r["activities"][0]), stable(d.activity()))
        figure(f"command round trip (mosquitto_pub -> response): {rtt * 1000:.0f} ms including mosquitto_pub's start")

    def test_a_pushed_until_activity_is_an_activity_like_any_other(self):
        """README.md "The state machine": start kind until and update over the command topic; the
        pushed timer gets its own retained activity topic; an update to a countdown is
        kind_mismatch and an unknown icon lists the names, each answered and changing nothing."""
        d = self.daemon()
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        laundry = d.topic("activity/laundry")
        live = self.broker.listen([laundry])
        self.addCleanup(live.stop)

        def ask(req):
            return self.ask(d, responses, req)

        ends = int(time.time()) + 3300
        r = ask({"op": "start", "kind": "until", "timer": "laundry", "title": "Laundry", "icon": "laundry",
                 "ends_at": ends, "text": "Washing", "request_id": "u1"})
        self.assertTrue(r.get("ok"), r)
        m = live.wait_for(lambda m: m.payload and json.loads(m.payload)["content"]["pushed"].get("text") == "Washing", timeout=5)
        self.assertIsNotNone(m, "nothing pushed on activity/laundry")
        a = json.loads(m.payload)
        self.assertEqual((a["attributes"]["kind"], a["phase"]), ("until", "running"))
        self.assertLess(abs(a["remaining_seconds"] - (ends - time.time())), 3, a)

        mark = live.mark()
        self.assertTrue(ask({"op": "update", "timer": "laundry", "progress": 0.5, "text": "Rinsing", "request_id": "u2"}).get("ok"))
        m = live.wait_for(lambda m: m.payload and json.loads(m.payload)["content"]["pushed"].get("text") == "Rinsing", timeout=5, start=mark)
        self.assertIsNotNone(m, "the update was not pushed")
        self.assertEqual(json.loads(m.payload)["content"]["pushed"]["progress"], 0.5)
        self.assertIn(laundry, self.broker.retained([laundry]), "the pushed timer's activity is retained")

        d.request({"op": "start", "seconds": 600})
        r = ask({"op": "update", "timer": "meditation", "text": "x", "request_id": "u3"})
        self.assertEqual(r["error"]["code"], "kind_mismatch", r)
        r = ask({"op": "start", "kind": "until", "timer": "toaster", "icon": "toaster", "request_id": "u4"})
        self.assertEqual(r["error"]["code"], "invalid_attributes", r)
        self.assertIn("laundry", r["error"]["message"], "the refusal lists the icons there are")
        self.assertIsNone(d.activity("toaster"))
        self.assertEqual(d.activity()["phase"], "running")

    def test_mqtt5_request_response_copies_correlation_data(self):
        d = self.daemon()
        d.request({"op": "start", "seconds": 600})
        seen = self.broker.listen([d.topic("response")], v5=True)
        self.addCleanup(seen.stop)
        t0 = time.monotonic()
        m = self.broker.rr(d.topic("command"), d.topic("response"), '{"op":"pause"}', correlation="corr-42")
        rtt = time.monotonic() - t0
        self.assertIsNotNone(m, "mosquitto_rr got no response")
        self.assertEqual(m.correlation, b"corr-42", f"the response does not carry the request's correlation data: {m}")
        r = json.loads(m.payload)
        self.assertTrue(r.get("ok"), r)
        self.assertEqual(d.activity()["phase"], "paused")
        # A second subscriber (not the requester) sees the same correlation data.
        other = seen.wait_for(lambda m: True, timeout=3)
        self.assertEqual(other.correlation if other else None, b"corr-42")
        figure(f"mosquitto_rr (MQTT 5) round trip: {rtt * 1000:.0f} ms including the client's start")

    def test_same_request_id_twice_is_done_once(self):
        d = self.daemon()
        d.request({"op": "start", "seconds": 600})
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        self.broker.pub(d.topic("command"), '{"op":"toggle","request_id":"tg-1"}')
        first = responses.wait_for(lambda m: True, timeout=5)
        self.assertIsNotNone(first)
        self.assertEqual(d.activity()["phase"], "paused")
        before = d.activity()
        self.broker.pub(d.topic("command"), '{"op":"toggle","request_id":"tg-1"}')
        answers = responses.wait_count(lambda m: True, 2, timeout=5)
        self.assertEqual(len(answers), 2, "the repeated request got no answer")
        self.assertEqual(answers[1].payload, answers[0].payload, "the repeated request's answer differs from the first")
        time.sleep(0.3)
        after = d.activity()
        self.assertEqual(after, before, "the repeated toggle changed the timer")
        # A new request id is a new request: the same toggle now resumes (so the check above can fail).
        self.broker.pub(d.topic("command"), '{"op":"toggle","request_id":"tg-2"}')
        self.assertEqual(len(responses.wait_count(lambda m: True, 3, timeout=5)), 3)
        self.assertEqual(d.activity()["phase"], "running")

    def test_malformed_non_utf8_and_oversized_commands_get_errors_and_change_nothing(self):
        d = self.daemon()
        d.request({"op": "start", "seconds": 600})
        d.request({"op": "pause"})
        before = d.status()["activities"]
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        cases = [
            ("malformed JSON", b'{"op":"reset",', "invalid_json"),
            ("non-UTF-8 bytes", b'{"op":"reset","timer":"\xff\xfe"}', "invalid_json"),
            ("oversized (17 KiB)", b'{"op":"reset","pad":"' + b"x" * (17 * 1024) + b'"}', "payload_too_large"),
        ]
        for what, payload, code in cases:
            mark = responses.mark()
            self.broker.pub(d.topic("command"), payload)
            m = responses.wait_for(lambda m: True, timeout=5, start=mark)
            self.assertIsNotNone(m, f"{what}: no answer")
            r = json.loads(m.payload)
            self.assertIs(r.get("ok"), False, f"{what}: {r}")
            self.assertEqual(r.get("error", {}).get("code"), code, f"{what}: {r}")
            self.assertTrue(r["error"].get("message"), f"{what}: no message")
        self.assertEqual(d.status()["activities"], before, "a rejected command changed the state")
        # The limit is where the spec puts it: 16 KiB passes the size check (and is then parsed).
        mark = responses.mark()
        pad = 16 * 1024 - len(b'{"op":"status","request_id":"big","pad":""}')
        self.broker.pub(d.topic("command"), b'{"op":"status","request_id":"big","pad":"' + b"y" * pad + b'"}')
        r = json.loads(responses.wait_for(lambda m: True, timeout=5, start=mark).payload)
        self.assertNotEqual(r.get("error", {}).get("code"), "payload_too_large", f"16384 bytes were refused as too large: {r}")

    def test_retained_command_published_while_connected_is_refused(self):
        """docs/MQTT.md: "A retained command is refused (retained_command)". A subscriber already
        there gets a retained publish with the retain flag cleared unless it subscribed with
        MQTT 5's retain-as-published option, so only that option lets the daemon see it."""
        d = self.daemon()
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        self.addCleanup(lambda: self.broker.running and self.broker.pub(d.topic("command"), b"", retain=True))
        self.broker.pub(d.topic("command"), '{"op":"start","seconds":600,"request_id":"ret-1"}', retain=True)
        m = responses.wait_for(lambda m: True, timeout=5)
        self.assertIsNotNone(m, "no answer to a retained command")
        r = json.loads(m.payload)
        self.assertEqual(d.status()["activities"], [], f"a retained command published while Islet was connected was done: {r}")
        self.assertEqual((r.get("ok"), r.get("error", {}).get("code")), (False, "retained_command"), r)

    def test_retained_command_is_not_done_again_at_reconnect(self):
        """After a restart the broker hands a retained command over at subscribe time (with the
        retain flag set): it must not act then either, or every reconnect would press again."""
        d = self.daemon()
        d.request({"op": "start", "seconds": 600})
        before = d.activity()
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        self.broker.pub(d.topic("command"), '{"op":"toggle"}', retain=True)
        self.addCleanup(lambda: self.broker.running and self.broker.pub(d.topic("command"), b"", retain=True))
        first = responses.wait_for(lambda m: True, timeout=5)
        self.assertIsNotNone(first)
        self.assertEqual(json.loads(first.payload).get("error", {}).get("code"), "retained_command")
        self.assertEqual(d.activity()["phase"], "running", "the live retained toggle paused the timer")
        d.stop()
        mark = responses.mark()
        d.start()
        d.wait_mqtt("connected")
        m = responses.wait_for(lambda m: True, timeout=5, start=mark)
        self.assertIsNotNone(m, "no answer to the retained command after the restart")
        r = json.loads(m.payload)
        self.assertEqual((r.get("ok"), r.get("error", {}).get("code")), (False, "retained_command"),
                         f"the retained toggle was done again at reconnect: {r}")
        figure(f"retained command at reconnect: refused with {r.get('error', {}).get('code')!r}")
        self.assertRunning(d, after=before)


class CommandGuarantees(MQTTCase):
    def test_refused_commands_count_against_the_rate(self):
        """docs/MQTT.md "Bounds": every message on the command topic counts against the 20 a
        second (burst 40), the ones refused before they are read too (an outside pass got an answer
        for each of 1,200 oversized and 300 retained commands): 300 oversized payloads in a row get
        at most the burst and the rate's answers, the rest counted in commands_dropped."""
        import subprocess
        d = self.daemon()
        answers = self.broker.listen([d.topic("response")])
        self.addCleanup(answers.stop)
        path = os.path.join(self.broker.dir, "oversized.txt")
        with open(path, "w") as fh:
            fh.write(("x" * 16_400 + "\n") * 300)
        t0 = time.monotonic()
        with open(path) as fh:
            r = subprocess.run(["mosquitto_pub", *self.broker.client_args(), "-t", d.topic("command"), "-q", "0", "-l"],
                               stdin=fh, capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        # Until no new answer has come for a second.
        last, deadline = -1, time.monotonic() + 20
        while time.monotonic() < deadline and len(answers.messages) != last:
            last = len(answers.messages)
            time.sleep(1.0)
        elapsed = time.monotonic() - t0
        codes = {json.loads(m.payload).get("error", {}).get("code") for m in answers.messages}
        bound = 40 + 20 * elapsed + 5
        dropped = d.mqtt().get("commands_dropped")
        figure(f"300 oversized commands: {len(answers.messages)} answered in {elapsed:.1f} s (bound {bound:.0f}), "
               f"commands_dropped {dropped}")
        self.assertEqual(codes, {"payload_too_large"}, codes)
        self.assertLessEqual(len(answers.messages), bound)
        self.assertGreaterEqual(len(answers.messages), 40, "the burst is answered")
        self.assertIsInstance(dropped, int)
        self.assertGreaterEqual(dropped, 300 - len(answers.messages))

    def test_commands_off_answers_forbidden_and_changes_nothing(self):
        d = self.daemon(commands="off")
        d.request({"op": "start", "seconds": 600})
        d.request({"op": "pause"})
        before = d.status()["activities"]
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        self.broker.pub(d.topic("command"), '{"op":"reset","request_id":"no-1"}')
        m = responses.wait_for(lambda m: True, timeout=5)
        self.assertIsNotNone(m, "no answer with commands = off")
        r = json.loads(m.payload)
        self.assertEqual((r.get("ok"), r.get("error", {}).get("code"), r.get("request_id")), (False, "forbidden", "no-1"), r)
        self.assertEqual(d.status()["activities"], before)
        # The state is still published: a read-only display.
        self.assertIn(d.topic("activity/meditation"), self.broker.retained([d.topic("#")]))

    def test_settings_ops_over_the_command_topic(self):
        """docs/WEB.md "Settings": the settings ops are control requests, over MQTT too with
        `commands = on` (the same parser, the same answers, answered once settings.json holds
        the change); `commands = off` refuses them as every other command."""
        d = self.daemon()
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)

        def ask(req):
            return self.ask(d, responses, req)

        def contrast():
            keys = d.request({"op": "settings"})["settings"]["keys"]
            e = next(k for k in keys if k["key"] == "display.contrast")
            return e["value"], e["source"]

        r = ask({"op": "settings_set", "key": "display.contrast", "value": "77", "request_id": "set-1"})
        self.assertTrue(r.get("ok"), r)
        self.assertIn("display.contrast", [k["key"] for k in r["settings"]["keys"]], r)
        self.assertEqual(contrast(), ("77", "page"))
        r = ask({"op": "settings_set", "key": "display.contrast", "value": "300", "request_id": "set-2"})
        self.assertEqual((r.get("ok"), r.get("error", {}).get("code")), (False, "invalid_value"), r)
        self.assertIn("300", r["error"]["message"], r)
        r = ask({"op": "settings_import", "backup": '{"islet_backup":99,"settings":{}}', "request_id": "imp-1"})
        self.assertEqual((r.get("ok"), r.get("error", {}).get("code")), (False, "invalid_backup"), r)
        self.assertIn("99", r["error"]["message"], r)
        r = ask({"op": "settings_export", "request_id": "exp-1"})
        self.assertTrue(r.get("ok"), r)
        backup = json.loads(r["settings"]["backup"])
        self.assertEqual((backup.get("islet_backup"), backup.get("settings")), (1, {"display.contrast": "77"}), backup)
        r = ask({"op": "settings_reset", "key": "display.contrast", "request_id": "rst-1"})
        self.assertTrue(r.get("ok"), r)
        self.assertEqual(contrast()[1], "default")
        # commands = off: refused as any command, nothing changed.
        off = self.daemon(commands="off")
        off_responses = self.broker.listen([off.topic("response")])
        self.addCleanup(off_responses.stop)
        r = self.ask(off, off_responses, {"op": "settings_set", "key": "display.contrast", "value": "9", "request_id": "no-set"})
        self.assertEqual((r.get("ok"), r.get("error", {}).get("code")), (False, "forbidden"), r)
        keys = off.request({"op": "settings"})["settings"]["keys"]
        self.assertNotEqual(next(k for k in keys if k["key"] == "display.contrast")["source"], "page")
        figure("settings over MQTT: set, a refusal with the parser's words, a newer backup refused, export, reset; "
               "commands = off refuses them")

    def test_watch_answers_the_snapshot(self):
        d = self.daemon()
        d.request({"op": "start", "seconds": 600})
        responses = self.broker.listen([d.topic("response")])
        self.addCleanup(responses.stop)
        self.broker.pub(d.topic("command"), '{"op":"watch","request_id":"w1"}')
        got = responses.wait_count(lambda m: True, 1, timeout=5)
        time.sleep(1.5)
        self.assertEqual(len(responses.messages), 1, f"watch over MQTT answered more than once: {responses.messages}")
        r = json.loads(got[0].payload)
        self.assertEqual((r.get("ok"), r.get("request_id")), (True, "w1"), r)
        self.assertEqual([a["phase"] for a in r.get("activities", [])], ["running"], r)

    def test_commands_sent_while_disconnected_are_not_done_later(self):
        d = self.daemon()
        self.assertEqual(d.stop(), 0)
        # QoS 1 to a client that is away: a clean session has no queue for it.
        self.broker.pub(d.topic("command"), '{"op":"start","seconds":600,"request_id":"late-1"}', qos=1)
        d.start()
        d.wait_mqtt("connected")
        time.sleep(1.0)
        self.assertEqual(d.status()["activities"], [], "a command sent while Islet was away was done later")


class CheckConfig(unittest.TestCase):
    def test_world_readable_password_file_is_refused_with_file_and_line(self):
        d = Daemon({"url": "mqtt://127.0.0.1:1883", "username": "islet", "password_file": "PLACEHOLDER"})
        self.addCleanup(d.close)
        pw = os.path.join(d.dir, "mqtt.password")
        with open(pw, "w") as f:
            f.write("secret-password\n")
        d.write_config({"url": "mqtt://127.0.0.1:1883", "username": "islet", "password_file": pw})
        with open(d.config) as f:
            line = next(i for i, l in enumerate(f, 1) if l.startswith("password_file"))
        os.chmod(pw, 0o644)
        rc, out = check_config(d.config)
        figure(f"check-config, world-readable password file: exit {rc}: {out.strip()[:160]}")
        self.assertEqual(rc, 78, out)
        self.assertIn(f"{d.config}:{line}", out)
        self.assertNotIn("secret-password", out)
        os.chmod(pw, 0o640)
        rc, out = check_config(d.config)
        self.assertEqual(rc, 0, f"a 0640 password file was refused: {out}")


if __name__ == "__main__":
    unittest.main()
