"""`make test-mqtt`: the bridge's connection to the broker (docs/MQTT.md): availability and the
last will (after kill -9 and a frozen daemon), the broker stopped and restarted or absent at
start, a wrong password, ACL denials shown in status, TLS with the right and the wrong CA.

Each case has its own mosquitto and isletd (mqtt/mqttcase.py's MQTTCase). Slow cases have
"slow" in their name and their time in the docstring.
"""
import json
import os
import signal
import time
import unittest

from mqttcase import MQTTCase, figure, payload_json, require, stable, tearDownModule  # noqa: F401
from testkit.broker import Broker


def setUpModule():
    require()


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




if __name__ == "__main__":
    unittest.main()
