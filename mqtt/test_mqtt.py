"""`make test-mqtt`: isletd's MQTT bridge (docs/MQTT.md) against a real broker (Debian's mosquitto).

Every case starts its own mosquitto on a free 127.0.0.1 port (mqtt/broker.py) and its own isletd
on the mock bus (mqtt/daemon.py); the black-hole case runs isletd inside network namespaces it
makes (mqtt/blackhole.py). Nothing else is contacted. Measured figures are printed as
"figure: ..." lines and again in a summary at the end.

Slow cases (a wait the behaviour needs: keepalive, a window of time) have "slow" in their name
and their time in the docstring; MQTT_SKIP_SLOW=1 skips them, and says so.

Run: python3 -m unittest discover -s mqtt -p 'test_*.py' -v
"""
import json
import os
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blackhole  # noqa: E402
from broker import Broker, missing_tools  # noqa: E402
from daemon import Daemon, SetupError, binaries, check_config, require_mqtt_support  # noqa: E402

FIGURES = []
SKIP_SLOW = os.environ.get("MQTT_SKIP_SLOW") == "1"
slow = unittest.skipIf(SKIP_SLOW, "slow case skipped because MQTT_SKIP_SLOW=1")
_ids = iter(range(1, 10_000))


def figure(text):
    FIGURES.append(text)
    print(f"\n    figure: {text}", flush=True)


def setUpModule():
    missing = missing_tools()
    if missing:
        raise SetupError(f"make test-mqtt needs Debian's mosquitto and mosquitto-clients, and openssl; missing: "
                         f"{', '.join(missing)} (apt-get install mosquitto mosquitto-clients openssl)")
    binaries()
    require_mqtt_support()


def tearDownModule():
    if FIGURES:
        print("\nmqtt figures:\n" + "\n".join(f"  {f}" for f in FIGURES), flush=True)


def payload_json(m):
    """The activity a message carries (None for an empty payload: a cleared retained one)."""
    return json.loads(m.payload) if m.payload else None


# The parts of an activity that do not move with the clock between two reports of it.
def stable(a):
    return {k: v for k, v in a.items() if k not in ("remaining_seconds", "elapsed_seconds", "shown")}


class MQTTCase(unittest.TestCase):
    """A fresh broker per case, and daemons that are cleaned up whatever happens."""

    broker_options = {}

    def setUp(self):
        self.broker = Broker(**self.broker_options)
        self.addCleanup(self.broker.close)
        self.broker.start()

    def daemon(self, start=True, wait="connected", netns=None, **mqtt):
        settings = {"url": self.broker.url, "client_id": f"t{os.getpid()}x{next(_ids)}", "keepalive": 60}
        settings.update(mqtt)
        d = Daemon(settings, netns=netns)
        self.addCleanup(d.close)
        self.addCleanup(self._log_on_failure, d)
        if start:
            d.start()
            if wait:
                d.wait_mqtt(wait)
        return d

    def _log_on_failure(self, d):
        # unittest has no "did it fail" hook; keep the daemon's log where a person can read it.
        outcome = getattr(self, "_outcome", None)
        errors = getattr(getattr(outcome, "result", None), "errors", []) + \
            getattr(getattr(outcome, "result", None), "failures", [])
        if any(t is self for t, _ in errors):
            print(f"\n--- isletd log ({d.dir}) ---\n{d.log_tail(2500)}\n--- mosquitto log ---\n"
                  f"{self.broker.log_tail(1500)}", flush=True)

    def password_file(self, d, text, mode=0o600):
        path = os.path.join(d.dir, "mqtt.password")
        with open(path, "w") as f:
            f.write(text + "\n")
        os.chmod(path, mode)
        return path

    def assertRunning(self, d, timer="meditation", after=None):
        """The timer runs and its time moves: remaining_seconds drops between two looks."""
        a1 = d.activity(timer)
        self.assertIsNotNone(a1, f"{timer} has no activity")
        self.assertEqual(a1["phase"], "running", a1)
        time.sleep(0.3)
        a2 = d.activity(timer)
        self.assertEqual(a2["phase"], "running", a2)
        self.assertLess(a2["remaining_seconds"], a1["remaining_seconds"], "the countdown did not move")
        if after is not None:
            self.assertEqual(a2["content"]["reference"], after["content"]["reference"],
                             "the running timer's end moved")
        return a2


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


class Availability(MQTTCase):
    def test_online_retained_and_offline_on_clean_stop(self):
        d = self.daemon()
        topic = d.topic("availability")
        self.assertEqual(self.broker.retained([topic]), {topic: b"online"})
        live = self.broker.listen([topic])
        self.addCleanup(live.stop)
        t0 = time.monotonic()
        self.assertEqual(d.stop(), 0)
        m = live.wait_for(lambda m: m.payload == b"offline", timeout=5)
        self.assertIsNotNone(m, "no offline after SIGTERM")
        figure(f"clean stop: offline {1000 * (time.monotonic() - t0):.0f} ms after SIGTERM")
        self.assertEqual(self.broker.retained([topic]), {topic: b"offline"})

    def test_slow_last_will_after_kill9_and_after_a_frozen_daemon(self):
        """slow: ~14 s (keepalive 5: the broker gives up after 1.5 x 5 s, checked every few seconds)"""
        d = self.daemon(keepalive=5)
        topic = d.topic("availability")
        self.assertEqual(self.broker.retained([topic]), {topic: b"online"})
        live = self.broker.listen([topic])
        self.addCleanup(live.stop)
        # kill -9: the kernel closes the socket, so the broker sends the will at once.
        t0 = time.monotonic()
        d.kill9()
        m = live.wait_for(lambda m: m.payload == b"offline", timeout=12)
        self.assertIsNotNone(m, "no last will after kill -9")
        figure(f"last will after kill -9: {time.monotonic() - t0:.2f} s (socket closed by the kernel)")
        self.assertEqual(self.broker.retained([topic]), {topic: b"offline"}, "the will is not retained")
        # A frozen daemon (SIGSTOP) keeps its socket open: only the keepalive can tell.
        mark = live.mark()
        d.start()
        self.assertIsNotNone(live.wait_for(lambda m: m.payload == b"online", timeout=10, start=mark),
                             "no online after the restart")
        d.request({"op": "start", "seconds": 600})
        before = d.activity()
        mark = live.mark()
        os.kill(d.proc.pid, signal.SIGSTOP)
        t0 = time.monotonic()
        try:
            m = live.wait_for(lambda m: m.payload == b"offline", timeout=15, start=mark)
            waited = time.monotonic() - t0
        finally:
            os.kill(d.proc.pid, signal.SIGCONT)
        self.assertIsNotNone(m, "no last will for a daemon silent past 1.5 x keepalive")
        figure(f"last will for a frozen daemon (keepalive 5): {waited:.2f} s after SIGSTOP")
        # 1.5 x keepalive from the daemon's last packet (the start, just before SIGSTOP), plus
        # mosquitto's own check granularity (measured: 11.2-11.4 s here for keepalive 5).
        self.assertGreaterEqual(waited, 7.0, "the will came before 1.5 x keepalive ran out")
        self.assertLessEqual(waited, 14.5)
        # Thawed: it finds the link dead, connects again, and says online; the timer kept time.
        mark = live.mark()
        t0 = time.monotonic()
        self.assertIsNotNone(live.wait_for(lambda m: m.payload == b"online", timeout=15, start=mark),
                             "no online after SIGCONT")
        figure(f"online again {time.monotonic() - t0:.2f} s after SIGCONT")
        self.assertRunning(d, after=before)


class BrokerRestart(MQTTCase):
    def test_slow_broker_stopped_and_restarted(self):
        """slow: ~6 s (the broker is away 2 s; reconnect backoff 1 s, 2 s, ...)"""
        d = self.daemon()
        d.request({"op": "start", "seconds": 600})
        before = d.activity()
        connected_since = d.mqtt()["since"]
        t0 = time.monotonic()
        self.broker.stop()
        m, waited = d.wait_mqtt("connecting", timeout=10)
        figure(f"broker stopped: status says connecting after {waited:.2f} s; last_error: {m.get('last_error')!r}")
        self.assertTrue(m.get("last_error"), f"no last_error while the broker is away: {m}")
        self.assertGreater(m["since"], connected_since, "since did not move with the state")
        self.assertRunning(d, after=before)
        time.sleep(max(0.0, 2.0 - (time.monotonic() - t0)))
        tried = d.mqtt().get("attempts")
        self.broker.start()
        self.assertEqual(self.broker.retained(["#"]), {}, "the restarted broker should hold nothing retained")
        m, waited = d.wait_mqtt("connected", timeout=15)
        figure(f"broker back: connected {waited:.2f} s after it accepted again ({tried} failed attempts while it was away 2 s)")
        retained = self.broker.retained([d.topic("#")])
        self.assertEqual(retained.get(d.topic("availability")), b"online")
        self.assertIn(d.topic("activity/meditation"), retained, "the activity was not published again")
        again = json.loads(retained[d.topic("activity/meditation")])
        self.assertEqual(stable(again), stable(d.activity()))
        self.assertEqual(again["content"]["reference"], before["content"]["reference"])
        self.assertRunning(d, after=before)

    def test_no_broker_at_start_then_one_appears(self):
        self.broker.stop()
        d = self.daemon(wait="connecting")
        d.request({"op": "start", "seconds": 600})
        m = d.wait_mqtt(lambda m: m.get("state") == "connecting" and m.get("last_error"), timeout=5)[0]
        self.assertRegex(m["last_error"], r"(?i)refused|connect", m)
        self.broker.start()
        d.wait_mqtt("connected", timeout=15)
        self.assertIn(d.topic("activity/meditation"), self.broker.retained([d.topic("#")]))


class Refusals(MQTTCase):
    USER = "isl-user-q7"   # distinctive: it must appear nowhere in status or the log
    broker_options = {"users": {USER: "right-password", "tester": "tester-pw"}, "anonymous": False,
                      "client_user": ("tester", "tester-pw")}

    def test_wrong_password_is_refused_and_the_timer_runs_on(self):
        good = self.daemon(start=False, username=self.USER)
        good.write_config(dict(good.mqtt_settings, password_file=self.password_file(good, "right-password")))
        good.start()
        good.wait_mqtt("connected")   # the control: the right password gets in
        good.stop()
        d = self.daemon(start=False, username=self.USER)
        d.write_config(dict(d.mqtt_settings, password_file=self.password_file(d, "wrong-password")))
        d.start()
        d.request({"op": "start", "seconds": 600})
        before = d.activity()
        frames0 = d.status()["status"]["frames"]
        m, waited = d.wait_mqtt("refused", timeout=10)
        figure(f"wrong password: refused after {waited:.2f} s; last_error {m.get('last_error')!r}")
        self.assertTrue(m.get("last_error"), m)
        self.assertRegex(m["last_error"], r"(?i)not authori[sz]ed|password|bad user", m)
        text = d.ctl("status").stdout.decode()
        self.assertIn("refused", text, f"isletctl status does not show the refusal: {text}")
        for secret in ("wrong-password", self.USER):
            self.assertNotIn(secret, json.dumps(d.status()), f"{secret!r} reached status --json")
            self.assertNotIn(secret, text, f"{secret!r} reached isletctl status")
            with open(d.log_path) as f:
                self.assertNotIn(secret, f.read(), f"{secret!r} reached the log")
        time.sleep(1.5)
        self.assertRunning(d, after=before)
        self.assertGreater(d.status()["status"]["frames"], frames0, "the panel stopped rendering")
        # The broker's password file is fixed: a later attempt (same backoff) gets in.
        tried = d.mqtt().get("attempts")
        self.broker.set_users({self.USER: "wrong-password", "tester": "tester-pw"})
        t0 = time.monotonic()
        m, _ = d.wait_mqtt("connected", timeout=70)
        figure(f"password fixed at the broker: connected {time.monotonic() - t0:.1f} s later "
               f"(refused attempts until then: {tried})")
        self.assertIn(d.topic("activity/meditation"), self.broker.retained([d.topic("#")]))
        self.assertRunning(d, after=before)


class ACL(MQTTCase):
    """Mosquitto's classic acl_file does not refuse a SUBSCRIBE (2.0.11 grants it and then
    delivers nothing), so the subscription refusal is made with its dynamic-security plugin,
    which answers SUBACK 0x87. A refused publish (PUBACK 0x87 under MQTT 5) is made with acl_file."""
    broker_options = {"dynsec": True}

    def test_acl_denial_of_the_command_topic_shows_in_status(self):
        cid = f"acl{os.getpid()}"
        cmd = f"islet/{cid}/command"
        for c in (["createRole", "all"], ["addRoleACL", "all", "publishClientSend", "#", "allow"],
                  ["addRoleACL", "all", "subscribePattern", "#", "allow"],
                  ["createGroup", "anonymous"], ["addGroupRole", "anonymous", "all"], ["setAnonymousGroup", "anonymous"],
                  ["createClient", "islet", "-p", "islet-pw"], ["addClientRole", "islet", "all"],
                  ["createRole", "no-commands"], ["addRoleACL", "no-commands", "subscribeLiteral", cmd, "deny"],
                  ["addClientRole", "islet", "no-commands", "10"]):
            self.broker.dynsec(*c)
        d = self.daemon(start=False, client_id=cid, username="islet")
        d.write_config(dict(d.mqtt_settings, password_file=self.password_file(d, "islet-pw")))
        d.start()
        m, waited = d.wait_mqtt("refused", timeout=10)
        figure(f"ACL denial of the command topic: status {m.get('state')!r} after {waited:.2f} s; "
               f"last_error {m.get('last_error')!r}")
        self.assertIn(cmd, m.get("last_error") or "", m)
        # What is allowed still works: the state is pushed.
        d.request({"op": "start", "seconds": 600})
        time.sleep(0.5)
        self.assertIn(d.topic("activity/meditation"), self.broker.retained([d.topic("#")]))
        self.assertRunning(d)

    def test_acl_denial_of_a_publish_shows_in_status(self):
        self.broker.close()
        cid = f"aclp{os.getpid()}"
        p = f"islet/{cid}"
        # Anonymous clients (this test's) may do anything; the daemon's user may not write its activity.
        self.broker = Broker(acl=f"topic readwrite #\n\nuser islet\ntopic readwrite {p}/availability\n"
                                 f"topic read {p}/activity/#\ntopic readwrite {p}/command\n"
                                 f"topic readwrite {p}/response\ntopic readwrite homeassistant/#\n")
        self.addCleanup(self.broker.close)
        self.broker.start()
        d = self.daemon(client_id=cid, username="islet")
        d.request({"op": "start", "seconds": 600})
        m, waited = d.wait_mqtt("refused", timeout=10)
        figure(f"ACL denial of a publish: status {m.get('state')!r} after {waited:.2f} s; last_error {m.get('last_error')!r}")
        self.assertIn(f"{p}/activity/meditation", m.get("last_error") or "", m)
        self.assertRunning(d)


class TLS(MQTTCase):
    broker_options = {"tls": True}

    def test_right_ca_connects(self):
        d = self.daemon(url=self.broker.tls_url, ca_file=self.broker.tls.ca, wait=None)
        m, waited = d.wait_mqtt("connected", timeout=10)
        figure(f"TLS with the right CA: connected in {waited:.2f} s ({m['broker']})")
        d.request({"op": "start", "seconds": 600})
        time.sleep(0.5)
        # Read back over TLS too.
        got = self.broker.sub([d.topic("activity/#")], timeout=2, retained_only=True, tls=True)
        self.assertEqual([payload_json(x)["phase"] for x in got], ["running"])

    def test_wrong_ca_is_a_certificate_error(self):
        d = self.daemon(url=self.broker.tls_url, ca_file=self.broker.tls.wrong_ca, wait=None)
        d.request({"op": "start", "seconds": 600})
        m, waited = d.wait_mqtt(lambda m: m.get("last_error"), timeout=10)
        figure(f"TLS with the wrong CA: {m.get('state')!r} after {waited:.2f} s; last_error {m.get('last_error')!r}")
        self.assertNotEqual(m["state"], "connected")
        self.assertRegex(m["last_error"], r"(?i)tls|ssl|certificate|verif", m)
        time.sleep(1.5)
        self.assertNotEqual(d.mqtt()["state"], "connected")
        self.assertRunning(d)

    def test_tls_url_against_the_plain_port_fails(self):
        d = self.daemon(url=f"mqtts://127.0.0.1:{self.broker.port}", ca_file=self.broker.tls.ca, wait=None)
        m, _ = d.wait_mqtt(lambda m: m.get("last_error"), timeout=10)
        self.assertNotEqual(m["state"], "connected", m)


class BlackHole(MQTTCase):
    PROMPT = 0.5   # seconds: the bound on one `isletctl status --json`

    @slow
    def test_slow_black_holed_broker_and_dns_leave_the_loop_ticking(self):
        """slow: ~35 s (status probed for 10 s, then until the 30 s attempt limit has passed;
        both daemons at once, and a daemon without [mqtt] as the control).

        A loop held by a blocking lookup or connect cannot answer for seconds (the resolver waits
        5 s a try, a connect to a black hole about two minutes), so a call over the bound is asked
        again at once: a held loop is still held, a busy machine (isletctl's own start delayed by
        other processes) answers the retry. A slow call whose retry is prompt too is counted
        and printed as an outlier, as the control daemon's are; a slow retry fails the case."""
        why = blackhole.available()
        self.assertIsNone(why, f"the black-hole case cannot run: {why}")
        bh = blackhole.BlackHole()
        self.addCleanup(bh.close)
        connect, lookup = bh.self_test(connect_wait=1.0, lookup_wait=1.0)
        figure(f"black hole checked: connect to {blackhole.BROKER} hung {connect:.2f} s, "
               f"lookup of {blackhole.HOSTNAME} hung {lookup:.2f} s (both given up by the probe)")
        started = time.monotonic()
        daemons = {
            "address": self.daemon(netns=bh.ns, url=f"mqtt://{blackhole.BROKER}:1883", wait="connecting"),
            "dns": self.daemon(netns=bh.ns, url=f"mqtt://{blackhole.HOSTNAME}:1883", wait="connecting"),
        }
        control = Daemon(None)
        self.addCleanup(control.close)
        control.start()
        for d in list(daemons.values()) + [control]:
            d.request({"op": "start", "seconds": 600})
        frames0 = {k: d.status()["status"]["frames"] for k, d in daemons.items()}
        latencies = {k: [] for k in list(daemons) + ["control"]}
        outliers = {k: [] for k in latencies}   # (first call, its retry) in seconds
        frames = {k: [frames0[k]] for k in daemons}
        last = {}

        def timed_status(k, d):
            t0 = time.monotonic()
            s = d.status()
            took = time.monotonic() - t0
            latencies[k].append(took)
            if took >= self.PROMPT:
                t0 = time.monotonic()
                s = d.status()
                retry = time.monotonic() - t0
                outliers[k].append((took, retry))
                self.assertLess(retry, self.PROMPT, f"{k}: status took {took:.3f} s and {retry:.3f} s again: the loop is held")
            return s

        def probe():
            timed_status("control", control)
            for k, d in daemons.items():
                s = timed_status(k, d)
                last[k] = s["status"]["mqtt"]
                self.assertNotEqual(last[k]["state"], "connected", last[k])
                frames[k].append(s["status"]["frames"])

        t_end = time.monotonic() + 10
        while time.monotonic() < t_end:
            probe()
            time.sleep(0.25)
        for k in daemons:
            lat = sorted(latencies[k])
            gained = frames[k][-1] - frames0[k]
            figure(f"black-holed {k}: {len(lat)} status calls over 10 s, max {lat[-1] * 1000:.0f} ms, "
                   f"median {lat[len(lat) // 2] * 1000:.0f} ms; frames +{gained}; state {last[k]['state']}")
            self.assertEqual(last[k]["state"], "connecting")
            self.assertEqual(frames[k], sorted(frames[k]))
            self.assertGreaterEqual(gained, 7, f"{k}: the running countdown rendered {gained} frames in 10 s")
            # Every 2 s slice of the window saw new frames.
            step = max(1, len(frames[k]) // 5)
            for i in range(0, len(frames[k]) - step, step):
                self.assertGreater(frames[k][i + step], frames[k][i], f"{k}: frames stalled: {frames[k]}")
            self.assertRunning(daemons[k])
        # The broker address never answers: the attempt is abandoned after 30 s and a new one
        # starts (docs/MQTT.md, "Status"). The loop stays prompt throughout.
        def next_attempt_started():
            a = last["address"]
            return "30 s" in (a.get("last_error") or "") and a.get("attempts", 0) >= 2

        while time.monotonic() - started < 42 and not next_attempt_started():
            probe()
            time.sleep(0.5)
        waited = time.monotonic() - started
        figure(f"black-holed address after {waited:.0f} s: attempts {last['address'].get('attempts')}, "
               f"last_error {last['address'].get('last_error')!r}; dns: attempts {last['dns'].get('attempts')}, "
               f"last_error {last['dns'].get('last_error')!r}")
        self.assertIn("30 s", last["address"].get("last_error") or "", last["address"])
        self.assertGreaterEqual(last["address"].get("attempts", 0), 2, last["address"])
        for k, lat in latencies.items():
            lat = sorted(lat)
            figure(f"black hole, {k}: {len(lat)} isletctl status calls over {waited:.0f} s: median "
                   f"{lat[len(lat) // 2] * 1000:.0f} ms, max {lat[-1] * 1000:.0f} ms; over {self.PROMPT} s: "
                   f"{len(outliers[k])}" + (" (" + ", ".join(f"{a:.2f} s, retry {b * 1000:.0f} ms" for a, b in outliers[k]) + ")"
                                            if outliers[k] else ""))
            if k != "control":
                self.assertLessEqual(len(outliers[k]), max(2, len(lat) // 10),
                                     f"{k}: too many slow answers to tell a loop from a busy machine")
        for d in daemons.values():
            self.assertRunning(d)
        # A stop while an attempt hangs (systemctl stop must not wait for the kernel's give-up).
        for k, d in daemons.items():
            t0 = time.monotonic()
            rc = d.stop(timeout=10)
            figure(f"black-holed {k}: SIGTERM to exit {time.monotonic() - t0:.2f} s, status {rc}")
            self.assertEqual(rc, 0)


class Wakeups(MQTTCase):
    @slow
    def test_slow_wakeups_while_paused_and_connected(self):
        """slow: ~22 s (a 20 s window at keepalive 10; a daemon without [mqtt] beside it as the baseline)"""
        window, keepalive = 20.0, 10
        d = self.daemon(keepalive=keepalive)
        base = Daemon(None)
        self.addCleanup(base.close)
        base.start()
        for x in (d, base):
            x.request({"op": "start", "seconds": 600})
            x.request({"op": "pause"})
        # The pause was published (the keepalive counts from there): the window [1 s, 21 s] holds
        # the pings at 10 s and 20 s.
        time.sleep(1.0)
        w0, b0 = d.status()["status"]["wakeups"], base.status()["status"]["wakeups"]
        t0 = time.monotonic()
        time.sleep(window)
        s, sb = d.status(), base.status()
        elapsed = time.monotonic() - t0
        woke, base_woke = s["status"]["wakeups"] - w0, sb["status"]["wakeups"] - b0
        bound = (window / keepalive) * 2 + 3
        figure(f"wake-ups while paused and connected: {woke} in {elapsed:.1f} s at keepalive {keepalive} "
               f"(bound {bound:.0f}); without [mqtt]: {base_woke} (both include the closing status request)")
        self.assertEqual(s["status"]["mqtt"]["state"], "connected")
        # The bound of the brief counts the closing status request as 3; the baseline measures
        # what that request (and anything else not MQTT's) cost in this window, so the bound is
        # held on MQTT's own wake-ups: 2 per keepalive (the ping out, the answer in), +1 slack.
        own = woke - base_woke
        figure(f"MQTT's own wake-ups while paused: {own} in {elapsed:.1f} s (bound {window / keepalive * 2 + 1:.0f})")
        self.assertLessEqual(own, (window / keepalive) * 2 + 1)
        self.assertLessEqual(woke, bound + max(0, base_woke - 3), "over the bound even with the request's measured cost")
        # Still connected after two keepalive periods: the pings went out.
        self.assertEqual(self.broker.retained([d.topic("availability")]), {d.topic("availability"): b"online"})


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
