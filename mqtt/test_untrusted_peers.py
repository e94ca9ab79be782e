"""`make test-mqtt`: isletd against untrusted peers and bad brokers (docs/MQTT.md, docs/SYNC.md):
a forged record at the current revision, replays of an old one, two invented peers an hour
ahead, a broker that never sends CONNACK (slow), two displays with one client id (slow), a
broker's packet and message size limits, a password in the URL, timers whose object ids clash.

Every case starts its own mosquitto and real isletd processes (mqtt/untrustedcase.py).
Figures are printed as "figure: ..." lines. Cases over 20 s have "slow" in their name.

Run: python3 -m unittest -v test_untrusted_peers   (from mqtt/)
"""
import calendar
import json
import os
import re
import time
import unittest

from attacker import SilentBroker, now_ms
from mqttcase import figure, next_id, require, slow, stale, tearDownModule  # noqa: F401
from testkit.broker import Broker, wait_until
from testkit.daemon import check_config
from untrustedcase import UntrustedCase


def setUpModule():
    require("the untrusted-peer tests", paho=True)


class ForgedRecords(UntrustedCase):
    def test_forged_record_at_the_current_revision_converges(self):
        """A record with the current record's exact revision and another duration, retained: a
        display that joins later and the first converge (same phase, remaining within 2 s)."""
        a = self.display("desk")
        self.ask(a, {"op": "start", "seconds": 600}, "on desk")
        topic = self.state_topic("meditation")
        rec = json.loads(wait_until("desk's record is retained", lambda: self.broker.retained([topic]).get(topic)))
        forged = json.loads(json.dumps(rec))
        act = forged["activity"]
        act["attributes"]["cycle_seconds"] = 300
        started = calendar.timegm(time.strptime(act["started_at"][:19], "%Y-%m-%dT%H:%M:%S"))
        act["content"]["reference"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started + 300)) + act["started_at"][19:]
        self.broker.pub(topic, json.dumps(forged), retain=True)
        time.sleep(0.5)
        b = self.display("bed")
        seen = []

        def converged():
            x, y = a.activity(), b.activity()
            seen.append((x and x["phase"], x and round(x["remaining_seconds"]), y and y["phase"], y and round(y["remaining_seconds"])))
            return x and y and x["phase"] == y["phase"] and abs(x["remaining_seconds"] - y["remaining_seconds"]) <= 2
        t0 = time.monotonic()
        while not converged() and time.monotonic() - t0 < 10:
            time.sleep(0.2)
        if not converged():
            self.fail(f"desk and bed did not converge within 10 s of bed's join after a forged record at desk's "
                      f"revision: (desk phase, remaining, bed phase, remaining) last {seen[-1]}")
        figure(f"forged record at the current revision: converged {time.monotonic() - t0:.1f} s after bed joined {seen[-1]}")

    def test_replays_of_an_old_record_are_answered_rarely(self):
        """1,000 replays of an older record of desk's timer over 5 s: desk corrects at most 3 times in ~10 s."""
        a = self.display("desk")
        topic = self.state_topic("meditation")
        live = self.broker.listen([topic])
        self.addCleanup(live.stop)
        self.ask(a, {"op": "start", "seconds": 600}, "on desk")
        old = live.wait_for(lambda m: bool(m.payload), timeout=5)
        self.ask(a, {"op": "pause"}, "on desk")
        cur = live.wait_for(lambda m: m.payload and m.payload != old.payload, timeout=5)
        self.assertIsNotNone(cur, "desk's pause was not published")
        cur_rev = json.loads(cur.payload)["revision"]
        mark = live.mark()
        f = self.flood([(topic, old.text, False)] * 1000, rate=200).start()
        t0 = time.monotonic()
        report = f.wait()
        time.sleep(max(0.0, 10 - (time.monotonic() - t0)))
        corrections = [m for m in live.since(mark) if m.payload and json.loads(m.payload)["revision"] == cur_rev]
        figure(f"replays ({report['sent']} in {report['seconds']:.1f} s): desk republished its record {len(corrections)} times in 10 s")
        self.assertLessEqual(len(corrections), 3, f"{len(corrections)} corrections of one timer in 10 s for {report['sent']} replays (bound 3)")
        self.alive(a, "after the replays")


class Clocks(UntrustedCase):
    def test_two_invented_peers_an_hour_ahead_do_not_judge_the_clock_off(self):
        """Two invented names beacon once each, 1 h ahead: a lone display's clock is not judged off
        and its activity not stale (checked for 5 s)."""
        d = self.display("desk")
        self.ask(d, {"op": "start", "seconds": 600}, "on desk")
        for n in ("ahead-1", "ahead-2"):
            self.broker.pub(f"islet/group/{self.group}/clock/{n}", json.dumps({"device": n, "wall_ms": now_ms() + 3_600_000}))
        bad = []
        t_end = time.monotonic() + 5
        while time.monotonic() < t_end and not bad:
            s, a = self.sync(d), d.activity()
            if s.get("clock") == "off" or stale(a):
                bad.append(f"clock {s.get('clock')!r} (offset {s.get('clock_offset_seconds')}, disagrees "
                           f"{s.get('clock_disagrees')}), activity stale {stale(a)}")
            time.sleep(0.25)
        figure(f"two invented peers 1 h ahead: {bad[0] if bad else 'clock not judged off, activity fresh'}")
        self.assertFalse(bad, f"two beacons from invented names judged a correct clock off: {bad}")


class BadBrokers(UntrustedCase):
    @slow
    def test_slow_broker_that_never_sends_connack(self):
        """slow: ~35 s. A listener that accepts and stays silent: status names the missing CONNACK
        and a new attempt starts (attempts >= 2) within 45 s."""
        silent = SilentBroker()
        self.addCleanup(silent.close)
        d = self.display("desk", sync=False, url=f"mqtt://127.0.0.1:{silent.port}", wait="connecting")
        t0, m = time.monotonic(), {}
        while time.monotonic() - t0 < 45:
            m = d.mqtt()
            if "CONNACK" in (m.get("last_error") or "") and m.get("attempts", 0) >= 2:
                break
            time.sleep(0.5)
        figure(f"silent broker after {time.monotonic() - t0:.0f} s: state {m.get('state')!r}, attempts "
               f"{m.get('attempts')}, last_error {m.get('last_error')!r}; connections accepted {silent.accepted}")
        self.assertIn("CONNACK", m.get("last_error") or "", f"no CONNACK named in status.mqtt within 45 s: {m}")
        self.assertGreaterEqual(m.get("attempts", 0), 2, f"no second attempt within 45 s: {m}")

    @slow
    def test_slow_two_displays_with_one_client_id(self):
        """slow: ~22 s. Two displays with one client id kick each other off: at most 12 connections
        in 20 s (the backoff grows: 1, 2, 4, 8 s each, with jitter; before, one a second each), and
        one of them says "same client id"."""
        cid = f"{self.group}-twin"
        a = self.display("desk", sync=False, client_id=cid, wait=None)
        b = self.display("bed", sync=False, client_id=cid, wait=None)
        t0 = time.monotonic()
        time.sleep(20)
        n = len(re.findall(rf"New client connected from \S+ as {re.escape(cid)} ", self.broker.log_tail(10**7)))
        ms = [a.mqtt(), b.mqtt()]
        said = [m for m in ms if "same client id" in (m.get("last_error") or "") + (m.get("reason") or "")]
        figure(f"one client id on two displays: {n} connections in {time.monotonic() - t0:.0f} s; status "
               + "; ".join(f"{m.get('state')!r} attempts {m.get('attempts')} last_error {m.get('last_error')!r}" for m in ms))
        problems = []
        if n > 12:
            problems.append(f"{n} connections in 20 s (bound 12): no backoff after being kicked")
        if not said:
            problems.append(f"neither status.mqtt names the duplicate (\"same client id\"): {ms}")
        self.check(problems)


    def test_a_restart_is_not_a_second_client(self):
        """One display restarted (its old instance token still retained) names no duplicate."""
        d = self.display("desk", sync=False)
        d.stop()
        self.start(d)
        time.sleep(2)
        m = d.mqtt()
        self.assertNotIn("same client id", (m.get("last_error") or "") + (m.get("reason") or ""), m)
        self.assertEqual(m.get("state"), "connected", m)


class PacketSize(UntrustedCase):
    broker_options = {"extra_config": ["max_packet_size 600"]}

    def test_broker_max_packet_size_is_named(self):
        """mosquitto with max_packet_size 600: announcements (about 700 bytes) cannot go, and
        status.mqtt does not say connected with no error: last_error names the packet size."""
        d = self.display("desk", sync=False, discovery="on", start=False)
        try:
            d.start()
        except RuntimeError as e:
            died = str(e).split("*** Signal")[0].strip()[-600:]
        else:
            died = None
        self.assertIsNone(died, f"isletd died against a broker with max_packet_size 600: {died}")
        time.sleep(3.0)
        self.alive(d, "against a broker with max_packet_size 600")
        m = d.mqtt()
        figure(f"max_packet_size 600: state {m.get('state')!r}, last_error {m.get('last_error')!r}")
        self.assertFalse(m.get("state") == "connected" and not m.get("last_error"),
                         f"connected with no error while announcements over 600 bytes could not be sent: {m}")
        self.assertIn("packet", (m.get("last_error") or "").lower(), f"last_error does not name the packet size: {m}")


class MessageSize(UntrustedCase):
    broker_options = {"extra_config": ["message_size_limit 300"]}

    def test_broker_message_size_limit_is_not_blamed_on_the_acl(self):
        """mosquitto with message_size_limit 300: the refusal in status names the size, not the ACL."""
        d = self.display("desk", sync=False, discovery="on", wait=None)
        d.request({"op": "start", "seconds": 600})
        time.sleep(3.0)
        m = d.mqtt()
        text = f"{m.get('last_error') or ''} {m.get('reason') or ''}"
        # What a person reads: status (JSON and isletctl's text) and the log's lines on the refusal.
        told = [("status.mqtt", json.dumps(m)), ("isletctl status", d.ctl("status").stdout.decode(errors="replace"))]
        told += [("the log", line) for line in d.log_tail(10**6).splitlines() if "refused" in line or "too large" in line]
        blamed = [f"{where}: {what.strip()[:240]}" for where, what in told if "ACL" in what]
        figure(f"message_size_limit 300: state {m.get('state')!r}, reason {m.get('reason')!r}, last_error {m.get('last_error')!r}; "
               f"{len(blamed)} places blame the ACL")
        self.assertTrue(text.strip(), f"nothing in status.mqtt says the broker dropped messages over 300 bytes: {m}")
        self.assertFalse(blamed, f"the size refusal is blamed on the ACL ({len(blamed)} places), first: {blamed[:1]}")
        self.assertRegex(text, r"(?i)size|large|too big|bytes", f"the refusal does not mention the size: {m}")


class ConfigAndDiscovery(UntrustedCase):
    def test_password_in_url_is_refused_without_echo(self):
        path = os.path.join(self.tmp, "isletd.conf")
        with open(path, "w") as f:
            f.write(f"[daemon]\nsocket = {self.tmp}/s.sock\nstate_dir = {self.tmp}/state\n"
                    "[mqtt]\nurl = mqtt://user:secret@127.0.0.1\n")
        rc, out = check_config(path)
        figure(f"password in the URL: --check-config exit {rc}: {out.strip()[:200]!r}")
        self.assertEqual(rc, 78, f"a URL with a password was not refused: exit {rc}: {out}")
        self.assertNotIn("secret", out, f"the password reached the message: {out}")
        self.assertIn(f"{path}:5", out, f"the message does not name the file:line: {out}")

    def test_timers_whose_object_ids_clash(self):
        """timers a.b and a_b: distinct discovery topics and unique_ids; a reset of a_b leaves a.b's."""
        d = self.display("desk", sync=False, discovery="on", timers="a.b, a_b")
        time.sleep(1.0)

        def by_timer():
            out = {}
            for topic, payload in self.broker.retained([f"homeassistant/+/{d.client_id}/+/config"]).items():
                if not payload:
                    continue
                c = json.loads(payload)
                ref = c.get("state_topic", "").rpartition("/activity/")[2] or \
                    json.loads(c.get("payload_press") or "{}").get("timer") or \
                    (re.search(r'"timer":"([^"]+)"', c.get("command_template", "")) or [None, None])[1]
                out.setdefault(ref, {})[topic] = c.get("unique_id")
            return out
        before = by_timer()
        ab, a_b = before.get("a.b", {}), before.get("a_b", {})
        figure(f"timers a.b and a_b: {len(ab)} config topics for a.b, {len(a_b)} for a_b, "
               f"{len(set(ab) & set(a_b))} shared topics")
        self.assertTrue(ab and a_b, f"a timer has no config topic of its own: a.b {sorted(ab)}, a_b {sorted(a_b)}")
        self.assertFalse(set(ab) & set(a_b), f"a.b and a_b share config topics: {sorted(set(ab) & set(a_b))}")
        self.assertFalse(set(ab.values()) & set(a_b.values()), "a.b and a_b share unique_ids")
        for op in ({"op": "start", "seconds": 600, "timer": "a_b"}, {"op": "reset", "timer": "a_b"}):
            self.ask(d, op, "on timer a_b")
        time.sleep(1.0)
        self.assertEqual(by_timer().get("a.b", {}), ab, "a reset of a_b changed a.b's entities")


if __name__ == "__main__":
    unittest.main()
