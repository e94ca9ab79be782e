"""`make test-mqtt`: isletd against an untrusted broker and the clients on it (docs/MQTT.md, docs/SYNC.md).

Every case starts its own mosquitto on a 127.0.0.1 port and real isletd processes on mock buses,
and plays a rogue device, a flood or a bad broker: a poisoned or future revision, 10,000 records
or beacons or commands, a forged record at the current revision, replays, a broker that never
sends CONNACK, two displays with one client id, a Home Assistant birth storm, a password in the
URL, clashing object ids, a broker's packet and message size limits. The attacker's client is
Debian's python3-paho-mqtt, run as a process of its own (mqtt/attacker.py), or mosquitto_pub.
Figures are printed as "figure: ..." lines. Cases over 20 s have "slow" in their name.

Run: python3 -m unittest -v test_untrusted   (from mqtt/)
"""
import calendar
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attacker  # noqa: E402
from attacker import Flood, Probe, SilentBroker, dir_size, frame_gaps, now_ms, vm_hwm, write_messages  # noqa: E402
from broker import Broker, missing_tools, wait_until  # noqa: E402
from daemon import Daemon, SetupError, binaries, check_config, require_mqtt_support  # noqa: E402

SKIP_SLOW = os.environ.get("MQTT_SKIP_SLOW") == "1"
slow = unittest.skipIf(SKIP_SLOW, "slow case skipped because MQTT_SKIP_SLOW=1")
_ids = iter(range(1, 10_000))
FLOOD = 10_000
# A person at the socket is served: the defect was a 10 s timeout. `isletctl status` is a process
# start each time, whose p99 on a loaded 2-core CI machine reached 56 ms with the daemon idle
# between samples, so its bound is 250 ms (40 times under the defect); the socket's own round
# trip has no exec in it and keeps 100 ms.
CTL_P99_MS, SOCK_P99_MS, GAP_S, HWM = 250, 100, 1.5, 64 * 1024 * 1024


def setUpModule():
    missing = missing_tools()
    if missing:
        raise SetupError(f"the untrusted-peer tests need Debian's mosquitto and mosquitto-clients; missing: {', '.join(missing)}")
    why = attacker.missing_paho()
    if why:
        raise SetupError(f"the untrusted-peer tests need python3-paho-mqtt (apt-get install python3-paho-mqtt): {why}")
    binaries()
    require_mqtt_support()


def figure(text):
    print(f"\n    figure: {text}", flush=True)




def stale(a):
    return bool((a.get("content") or {}).get("stale", a.get("stale")))


class UntrustedCase(unittest.TestCase):
    broker_options = {}
    longMessage = False   # the messages below carry the measured figures themselves

    def setUp(self):
        self.broker = Broker(**self.broker_options)
        self.addCleanup(self.broker.close)
        self.broker.start()
        self.group = f"u{os.getpid()}x{next(_ids)}"
        self.tmp = tempfile.mkdtemp(prefix="islet-untrusted-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", self.tmp]))

    def display(self, name, sync=True, capture=False, start=True, wait="connected", **mqtt):
        settings = {"url": self.broker.url, "client_id": f"{self.group}-{name}", "keepalive": 60, "discovery": "off"}
        settings.update(mqtt)
        d = Daemon(settings)
        d.name = name
        d.capture = os.path.join(d.dir, "bus.capture") if capture else None
        extra = f"[display]\ncapture = {d.capture}\n" if capture else ""
        if sync:
            extra += f"[sync]\ngroup = {self.group}\ndevice_name = {name}\n"
        d.write_config(settings, extra)
        self.addCleanup(d.close)
        self.addCleanup(self._log_on_failure, d)
        if start:
            self.start(d, wait)
        return d

    def start(self, d, wait="connected"):
        d.start()
        if wait:
            d.wait_mqtt(wait)
        with open(d.config) as f:
            synced = "[sync]" in f.read()
        if synced and wait:
            wait_until(f"{d.name} joins its group", lambda: (d.status()["status"].get("sync") or {}).get("joined"))
        return d

    def _log_on_failure(self, d):
        result = getattr(getattr(self, "_outcome", None), "result", None)
        if result and any(t is self for t, _ in result.failures + result.errors):
            print(f"\n--- isletd log of {d.name} ---\n{d.log_tail(2500)}\n--- mosquitto log ---\n{self.broker.log_tail(1200)}")

    def state_topic(self, timer):
        return f"islet/group/{self.group}/state/{timer}"

    @staticmethod
    def sync(d):
        return d.status()["status"].get("sync") or {}

    def alive(self, d, when):
        if not d.running:
            self.fail(f"isletd died {when} (exit status {d.proc.returncode}); log:\n{d.log_tail(1500)}")

    def ask(self, d, req, when):
        """A request on the control socket that must be answered ok."""
        try:
            r, err = d.request(req), None
        except (OSError, ValueError) as e:
            r, err = None, e
        if err is not None:
            time.sleep(0.3)
            self.alive(d, f"{when}, at {req}")
            self.fail(f"{req} {when}: no answer ({err})")
        self.assertTrue(r.get("ok"), f"{req} {when}: {r}")
        return r

    def works(self, d, when):
        """A start, a pause and a resume through the control socket are done, and it lives on."""
        self.alive(d, when)
        if d.activity():
            self.ask(d, {"op": "reset"}, when)
        for op, phase in (("start", "running"), ("pause", "paused"), ("resume", "running")):
            self.ask(d, {"op": op, "seconds": 600} if op == "start" else {"op": op}, when)
            a = d.activity()
            self.assertEqual(a and a["phase"], phase, f"after {op} {when}: {a}")
        time.sleep(0.3)
        self.alive(d, when)

    def flood(self, messages, rate=None):
        path = os.path.join(self.tmp, f"flood{next(_ids)}.txt")
        write_messages(path, messages)
        f = Flood(self.broker.port, path, rate=rate)
        self.addCleanup(f.kill)
        return f

    def check(self, problems):
        self.assertFalse(problems, "; ".join(problems))


class PoisonedRevisions(UntrustedCase):
    def test_poisoned_revision_is_refused_and_the_display_goes_on(self):
        """A retained tombstone at revision (Int64.max, UInt32.max, "rogue") is refused: the display
        still starts, pauses and resumes, before and after restarts with it retained, then removed."""
        d = self.display("desk")
        topic = self.state_topic("meditation")
        poison = json.dumps({"timer": "meditation",
                             "revision": {"wall_ms": 9223372036854775807, "counter": 4294967295, "device": "rogue"}})
        self.broker.pub(topic, poison, retain=True)
        time.sleep(1.0)
        self.works(d, "after the poisoned record")
        d.stop()
        self.broker.pub(topic, poison, retain=True)   # our start replaced it on the broker: put it back
        self.start(d)
        self.works(d, "after a restart with the poisoned record retained")
        d.stop()
        self.broker.pub(topic, b"", retain=True)
        self.start(d)
        self.works(d, "after a restart with the poisoned record removed")
        figure(f"poisoned revision: refused; the display worked after it and two restarts "
               f"(sync records {self.sync(d).get('records')})")

    def test_record_from_2100_does_not_move_own_revisions(self):
        """A tombstone dated 2100 (wall_ms 4102444800000): the display's next start is published with
        a revision within a few seconds of real time."""
        d = self.display("desk")
        topic = self.state_topic("meditation")
        self.broker.pub(topic, json.dumps({"timer": "meditation",
                                           "revision": {"wall_ms": 4102444800000, "counter": 0, "device": "rogue"}}), retain=True)
        time.sleep(1.0)
        live = self.broker.listen([topic])
        self.addCleanup(live.stop)
        self.ask(d, {"op": "start", "seconds": 600}, "after a record from 2100")
        m = live.wait_for(lambda m: m.payload and json.loads(m.payload)["revision"]["device"] == "desk", timeout=5)
        self.assertIsNotNone(m, "the start was not published on the group topic")
        off = (json.loads(m.payload)["revision"]["wall_ms"] - now_ms()) / 1000
        figure(f"record from 2100: the next own revision is {off:+.1f} s from real time")
        self.assertLess(abs(off), 5, f"the display's own revision moved to the rogue's year: {off:+.0f} s from now ({m})")


class Floods(UntrustedCase):
    def measured(self, d, flood, settle=2.0, until=None):
        """Runs the flood with a person at the socket; returns (probe, frame gap s, writes, t0, t1)."""
        probe = Probe(d).start()
        t0 = time.monotonic()
        flood.start()
        report = flood.wait()
        deadline = time.monotonic() + 20
        while until is not None and not until() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(settle)
        probe.stop()
        t1 = time.monotonic()
        gap, writes = frame_gaps(d.capture, t0, t1)
        self.flood_report = f"{report['sent']} messages sent in {report['seconds']:.2f} s"
        return probe, gap, writes, t0, t1

    def person_served(self, probe, gap, writes, problems, what):
        if Probe.p99(probe.ctl) * 1000 >= CTL_P99_MS:
            problems.append(f"{what}: isletctl status p99 {Probe.p99(probe.ctl) * 1000:.0f} ms (bound {CTL_P99_MS} ms)")
        if gap > GAP_S:
            problems.append(f"{what}: the countdown's frame stood still {gap:.2f} s (bound {GAP_S} s; {writes} bus writes)")

    def test_slow_flood_of_records_for_distinct_timers(self):
        """slow: ~25 s. 10,000 records of running activities for distinct timers from distinct
        devices: at most 256 records kept (16 live), state dir < 256 KiB, VmHWM < 64 MB, status
        answers during it; a broker restarted empty gets desk's own record back
        and at most 256 records in all."""
        d = self.display("desk", capture=True)
        self.ask(d, {"op": "start", "seconds": 600}, "before the flood")
        time.sleep(1.0)
        start = time.time()
        iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000Z"
        # Ten-minute countdowns: whichever the pill shows, its seconds tick (an hour shows minutes).
        activity = ('{"attributes":{"cycle_end_seconds":3,"cycle_seconds":600,"cycles":1,"kind":"countdown",'
                    '"language":"en","timer":"t%05d"},"content":{"cycle":1,"cycles":1,"phase":"running",'
                    f'"reference":"{iso(start + 600)}","schema":1,"stale":false}},'
                    f'"started_at":"{iso(start)}","updated_at":"{iso(start)}"}}')
        f = self.flood((self.state_topic(f"t{i:05d}"),
                        '{"timer":"t%05d","revision":{"wall_ms":%%NOW%%,"counter":0,"device":"r%05d"},"activity":%s}'
                        % (i, i, activity % i), False)
                       for i in range(FLOOD))
        probe, gap, writes, t0, t1 = self.measured(d, f)
        self.alive(d, "after the flood of records")
        records, size, hwm = self.sync(d).get("records"), dir_size(d.state), vm_hwm(d.proc.pid)
        self.broker.restart()
        wait_until("desk republishes its own record to the empty broker",
                   lambda: self.state_topic("meditation") in self.broker.retained([self.state_topic("meditation")]), timeout=20)
        time.sleep(2.0)
        held = self.broker.retained([f"islet/group/{self.group}/state/#"])
        figure(f"record flood ({self.flood_report}): {probe.summary()}; longest frame gap {gap:.2f} s "
               f"({writes} writes in {t1 - t0:.1f} s); records {records}; state dir {size / 1024:.0f} KiB; "
               f"VmHWM {hwm / 2**20:.1f} MiB; republished after an empty broker: {len(held)}")
        problems = []
        # The flood fills the 16 activity slots (docs/SYNC.md "Threat model"): the pill then shows
        # its minimal presentation, which has no seconds and so no bus write to time. The person
        # at the socket is the measure here: the socket's round trip, and isletd alive.
        if Probe.p99(probe.sock) * 1000 >= SOCK_P99_MS:
            problems.append(f"during the record flood: status round trip p99 {Probe.p99(probe.sock) * 1000:.0f} ms (bound {SOCK_P99_MS} ms)")
        if not isinstance(records, int) or records > 256:
            problems.append(f"status.sync.records is {records} (bound 256)")
        if size >= 256 * 1024:
            problems.append(f"the state directory holds {size} bytes (bound 256 KiB)")
        if hwm >= HWM:
            problems.append(f"VmHWM {hwm / 2**20:.1f} MiB (bound 64 MiB)")
        if len(held) > 256:
            problems.append(f"{len(held)} retained records republished to the empty broker (bound 256)")
        self.check(problems)

    def test_beacons_from_ten_thousand_invented_names(self):
        """10,000 clock beacons from invented names: at most 16 peers listed, status answers."""
        d = self.display("desk", capture=True)
        self.ask(d, {"op": "start", "seconds": 600}, "before the beacons")
        f = self.flood((f"islet/group/{self.group}/clock/n{i:05d}", '{"device":"n%05d","wall_ms":%%NOW%%}' % i, False)
                       for i in range(FLOOD))
        probe, gap, writes, t0, t1 = self.measured(d, f)
        self.alive(d, "after the beacon flood")
        peers = self.sync(d).get("peers") or []
        figure(f"beacon flood ({self.flood_report}): {probe.summary()}; longest frame gap {gap:.2f} s; "
               f"peers listed {len(peers)}")
        problems = []
        self.person_served(probe, gap, writes, problems, "during the beacon flood")
        if len(peers) > 16:
            problems.append(f"status.sync.peers lists {len(peers)} names (bound 16)")
        self.check(problems)

    def test_command_flood(self):
        """10,000 {"op":"status"} on <prefix>/command (mosquitto_pub -l): status answers, the panel
        ticks, memory stays bounded, and the broker's commands are rate-limited (20/s, burst 40),
        the rest counted in status.mqtt.commands_dropped."""
        d = self.display("desk", sync=False, capture=True)
        self.ask(d, {"op": "start", "seconds": 600}, "before the command flood")
        answers = self.broker.listen([d.topic("response")])
        self.addCleanup(answers.stop)
        path = os.path.join(self.tmp, "commands.txt")
        with open(path, "w") as fh:
            fh.write('{"op":"status"}\n' * FLOOD)
        probe = Probe(d).start()
        t0 = time.monotonic()
        with open(path) as fh:
            r = subprocess.run(["mosquitto_pub", *self.broker.client_args(), "-t", d.topic("command"), "-q", "0", "-l"],
                               stdin=fh, capture_output=True, timeout=60)
        sent_in = time.monotonic() - t0
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        # Until the daemon is done with the flood: no new answer for 1 s, and the socket prompt.
        last, deadline = -1, time.monotonic() + 30
        while time.monotonic() < deadline:
            n = len(answers.messages)
            t = time.monotonic()
            try:
                d.request({"op": "status"}, timeout=10)
            except (OSError, ValueError):
                pass
            if n == last and time.monotonic() - t < 0.2 and time.monotonic() - t0 > 4:
                break
            last = n
            time.sleep(1.0)
        probe.stop()
        t1 = time.monotonic()
        gap, writes = frame_gaps(d.capture, t0, t1)
        self.alive(d, "after the command flood")
        answered, hwm, m = len(answers.messages), vm_hwm(d.proc.pid), d.mqtt()
        bound = 40 + 20 * (t1 - t0) + 5
        figure(f"command flood ({FLOOD} sent in {sent_in:.2f} s): {probe.summary()}; longest frame gap {gap:.2f} s; "
               f"answered {answered} (as heard by a subscriber) in {t1 - t0:.1f} s (bound {bound:.0f}); commands_dropped "
               f"{m.get('commands_dropped')!r}; VmHWM {hwm / 2**20:.1f} MiB")
        problems = []
        self.person_served(probe, gap, writes, problems, "during the command flood")
        if answered > bound:
            problems.append(f"{answered} of {FLOOD} commands answered in {t1 - t0:.1f} s (bound {bound:.0f}: 20/s, burst 40)")
        dropped = m.get("commands_dropped")
        if not isinstance(dropped, int) or isinstance(dropped, bool) or dropped < 1:
            problems.append(f"status.mqtt.commands_dropped is {dropped!r} (an integer >= 1 expected)")
        if hwm >= HWM:
            problems.append(f"VmHWM {hwm / 2**20:.1f} MiB (bound 64 MiB)")
        self.check(problems)

    def test_home_assistant_birth_storm(self):
        """1,000 `homeassistant/status = online` within a second: at most two rounds of discovery
        configs go out, and the log gains at most a few "announcing" lines."""
        configs = self.broker.listen(["homeassistant/+/+/+/config"])
        self.addCleanup(configs.stop)
        d = self.display("desk", sync=False, discovery="on")
        time.sleep(1.5)
        first = len([m for m in configs.messages if m.payload])
        self.assertGreater(first, 0, "no discovery config was announced at connect")
        mark, logged = configs.mark(), d.log_tail(10**7).count("announcing")
        t0 = time.monotonic()
        r = subprocess.run(["mosquitto_pub", *self.broker.client_args(), "-t", "homeassistant/status", "-q", "0", "-l"],
                           input=b"online\n" * 1000, capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
        sent_in = time.monotonic() - t0
        last = -1
        while len(configs.messages) != last and time.monotonic() - t0 < 15:
            last = len(configs.messages)
            time.sleep(1.5)
        again = len([m for m in configs.since(mark) if m.payload])
        lines = d.log_tail(10**7).count("announcing") - logged
        figure(f"birth storm (1,000 in {sent_in:.2f} s): {again} config publishes after it (one round: {first}); "
               f"{lines} \"announcing\" log lines")
        problems = []
        if again > 2 * first:
            problems.append(f"{again} discovery configs published after the storm ({again / first:.0f} rounds of {first}; bound 2 rounds)")
        if lines > 3:
            problems.append(f"the log gained {lines} \"announcing\" lines (bound 3)")
        self.check(problems)


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
