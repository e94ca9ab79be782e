"""`make test-mqtt`: several displays in one `[sync] group` when the network splits or a clock
is off (docs/SYNC.md): a partition both ways (the broker stopped; the later press wins, the
loser names the conflict), one display cut off by the broker's ACL, a clock 10 s ahead under
libfaketime (stale, then fresh after the step; slow), and the `[sync]` config errors.

Each case starts its own mosquitto and real isletd processes (mqtt/synccase.py's SyncCase).

Run: python3 -m unittest -v test_sync_partition   (from mqtt/)
"""
import json
import os
import subprocess
import tempfile
import time
import unittest

from mqttcase import next_id, require, slow, stale, tearDownModule  # noqa: F401
from synccase import SyncCase, faketime_library
from testkit.broker import Broker, wait_until
from testkit.daemon import check_config


def setUpModule():
    require("the sync tests")


class Partition(SyncCase):
    def partitioned(self, presses):
        """desk and bed run one session; the broker goes away; then each (name, op) of
        `presses` is made on that display, 50 ms apart, each side on its own. Returns (desk, bed)."""
        a, b = self.display("desk"), self.display("bed")
        a.request({"op": "start", "seconds": 600})
        wait_until("the start shows on both", lambda: self.phases([a, b]) == ["running"] * 2)
        self.broker.stop()
        a.wait_mqtt("connecting")
        b.wait_mqtt("connecting")
        by_name = {"desk": a, "bed": b}
        for k, (name, op) in enumerate(presses):
            if k:
                time.sleep(0.05)
            r = by_name[name].request({"op": op})
            self.assertTrue(r.get("ok"), f"{name}'s {op} during the partition: {r}")
        return a, b

    def rejoin(self, a, b):
        """The broker comes back empty (no persistence); both reconnect (backoff: up to 60 s)."""
        self.broker.start()
        a.wait_mqtt("connected", timeout=70)
        b.wait_mqtt("connected", timeout=70)

    def test_partition_with_conflicting_presses(self):
        """The broker goes away (and comes back empty: no persistence); desk pauses, then bed
        resets, each on its own side. When they meet again both show idle: bed's reset was the
        later press. desk's pause is not lost silently: its status and log name the conflict."""
        a, b = self.partitioned([("desk", "pause"), ("bed", "reset")])
        self.assertEqual(self.phases([a, b]), ["paused", None], "each side acted at once on its own")
        self.rejoin(a, b)
        wait_until("both converge to the later press (bed's reset)", lambda: self.phases([a, b]) == [None, None])
        s = wait_until("desk names the conflict", lambda: self.sync(a).get("last_conflict"))
        self.assertIn("bed", s)
        self.assertIn("paused", s)
        self.assertIn("replaced", a.log_tail(6000))
        self.assertIsNone(self.sync(b).get("last_conflict"))
        # And the group goes on: a press on either side acts on both.
        b.request({"op": "start", "seconds": 300})
        wait_until("a start after the partition shows on both", lambda: self.phases([a, b]) == ["running"] * 2)

    def test_partition_later_pause_wins(self):
        """The other order: bed resets first, desk pauses later. The pause is the later press and
        wins on both; the reset loses and bed says so."""
        a, b = self.partitioned([("bed", "reset"), ("desk", "pause")])
        self.rejoin(a, b)
        wait_until("both converge to desk's later pause", lambda: self.phases([a, b]) == ["paused", "paused"])
        self.assertEqual(a.activity()["remaining_seconds"], b.activity()["remaining_seconds"])
        wait_until("bed names the conflict", lambda: self.sync(b).get("last_conflict"))


class OneDisplayCutOff(SyncCase):
    """The other partition: one display's link is gone (its Wi-Fi) while the broker and the
    other displays go on. The broker cuts bed off itself: mosquitto's dynamic-security plugin
    disables bed's client, which kicks its connection and refuses its reconnects until it is
    enabled again. The broker keeps the connected side's retained record all along."""

    def setUp(self):
        self.broker = Broker(dynsec=True)
        self.addCleanup(self.broker.close)
        self.broker.start()
        self.group = f"g{os.getpid()}x{next_id()}"
        # Anyone may do anything (desk, hall and the test's clients log in anonymously); bed
        # logs in as a client of its own, so that it alone can be cut off.
        for c in (["createRole", "all"], ["addRoleACL", "all", "publishClientSend", "#", "allow"],
                  ["addRoleACL", "all", "publishClientReceive", "#", "allow"],
                  ["addRoleACL", "all", "subscribePattern", "#", "allow"],
                  ["createGroup", "anonymous"], ["addGroupRole", "anonymous", "all"], ["setAnonymousGroup", "anonymous"],
                  ["createClient", "bed", "-p", "bed-pw"], ["addClientRole", "bed", "all"]):
            self.broker.dynsec(*c)

    def cut_off_bed_then(self, presses):
        """desk, bed and hall run one session; bed is cut off; each (name, op) of `presses` is
        made on that display, 50 ms apart; then bed is let back in. Returns (desk, bed, hall)."""
        a, b, c = self.display("desk"), self.display("bed", login=("bed", "bed-pw")), self.display("hall")
        trio = [a, b, c]
        self.assertTrue(a.request({"op": "start", "seconds": 600}).get("ok"))
        wait_until("the start shows on all three", lambda: self.phases(trio) == ["running"] * 3)
        self.broker.dynsec("disableClient", "bed")
        b.wait_mqtt(lambda m: m.get("state") != "connected")
        by_name = {d.name: d for d in trio}
        for k, (name, op) in enumerate(presses):
            if k:
                time.sleep(0.05)
            r = by_name[name].request({"op": op})
            self.assertTrue(r.get("ok"), f"{name}'s {op} while bed is cut off: {r}")
        # While bed is away, desk and hall are still one group; bed goes on by itself.
        wait_until("desk and hall agree while bed is away", lambda: len(set(self.phases([a, c]))) == 1)
        self.assertTrue(b.running, "bed keeps running while cut off")
        self.broker.dynsec("enableClient", "bed")
        b.wait_mqtt("connected", timeout=70)
        return a, b, c

    def test_cut_off_display_pressed_later_wins(self):
        """desk pauses (hall takes it at once), then bed, cut off, resets: bed's reset is the
        later press. Back, bed finds desk's older pause retained, answers with its reset, and all
        three show idle; desk names its replaced pause."""
        a, b, c = self.cut_off_bed_then([("desk", "pause"), ("bed", "reset")])
        wait_until("all three converge to bed's later reset", lambda: self.phases([a, b, c]) == [None] * 3)
        s = wait_until("desk names the conflict", lambda: self.sync(a).get("last_conflict"))
        self.assertIn("bed", s)
        self.assertIn("paused", s)
        self.assertIsNone(self.sync(b).get("last_conflict"), "bed's change won: nothing of bed's was replaced")
        topic = f"islet/group/{self.group}/state/meditation"
        record = json.loads(self.broker.retained([topic])[topic])
        self.assertEqual(record["revision"]["device"], "bed", f"the broker holds bed's record now: {record}")

    def test_connected_side_pressed_later_wins(self):
        """bed, cut off, resets first; desk pauses later (hall takes it). Back, bed takes desk's
        pause from the broker: all three show the same frozen time, and bed names its lost reset."""
        a, b, c = self.cut_off_bed_then([("bed", "reset"), ("desk", "pause")])
        wait_until("all three converge to desk's later pause", lambda: self.phases([a, b, c]) == ["paused"] * 3)
        frozen = {d.name: d.activity()["remaining_seconds"] for d in (a, b, c)}
        self.assertEqual(len(set(frozen.values())), 1, f"one frozen time everywhere: {frozen}")
        self.same_frame([a, b, c], "the paused frame is the same on the three panels")
        s = wait_until("bed names the conflict", lambda: self.sync(b).get("last_conflict"))
        self.assertIn("desk", s)
        self.assertIsNone(self.sync(a).get("last_conflict"))


class ClockSkew(SyncCase):
    @slow
    def test_slow_clock_ten_seconds_off(self):
        """hall's clock runs 10 s ahead (libfaketime): hall shows the activity stale and says
        why; desk and bed (one peer of two off: not most) do not. When hall's clock is set right
        (an NTP step) the next beacons bring it back. A peer votes once heard again 20 s after its
        first beacon (docs/SYNC.md "Threat model"), so the verdict takes one beacon interval. About 65 s."""
        lib = faketime_library()
        stamp = os.path.join(tempfile.mkdtemp(prefix="islet-sync-faketime-"), "offset")
        with open(stamp, "w") as f:
            f.write("+10s\n")
        env = {"LD_PRELOAD": lib, "FAKETIME_TIMESTAMP_FILE": stamp, "FAKETIME_NO_CACHE": "1",
               "FAKETIME_DONT_FAKE_MONOTONIC": "1"}
        a, b = self.display("desk"), self.display("bed")
        c = self.display("hall", env=env)
        a.request({"op": "start", "seconds": 600})
        a.request({"op": "pause"})
        wait_until("hall shows the pause", lambda: self.phases([c]) == ["paused"])
        s = wait_until("hall judges its clock off against both peers",
                       lambda: (lambda s: s if s.get("clock") == "off" and len(s.get("clock_disagrees", [])) == 2 else None)(self.sync(c)),
                       timeout=45)
        self.assertEqual(sorted(s["clock_disagrees"]), ["bed", "desk"], s)
        self.assertLess(abs(s["clock_offset_seconds"] + 10), 1.0, s)
        wait_until("hall shows the activity stale", lambda: stale(c.activity()))
        r = c.ctl("status")
        self.assertIn("s ahead of bed, desk", r.stdout.decode(), r.stdout.decode())
        for d in (a, b):
            self.assertNotEqual(self.sync(d).get("clock"), "off", self.sync(d))
            self.assertFalse(stale(d.activity()), d.name)
        # The step: hall's clock is right again; beacons every 30 s bring the verdict back.
        with open(stamp, "w") as f:
            f.write("+0s\n")
        wait_until("hall agrees again after the step", lambda: self.sync(c).get("clock") == "agrees", timeout=40)
        wait_until("hall shows the activity fresh", lambda: not stale(c.activity()))


class Config(unittest.TestCase):
    def write(self, text):
        d = tempfile.mkdtemp(prefix="islet-sync-conf-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        p = os.path.join(d, "isletd.conf")
        with open(p, "w") as f:
            f.write(f"[daemon]\nsocket = {d}/s.sock\nstate_dir = {d}/state\n" + text)
        return p

    def test_sync_needs_mqtt_and_a_group(self):
        rc, out = check_config(self.write("[sync]\ngroup = desk\n"))
        self.assertEqual(rc, 78, out)
        self.assertIn("isletd.conf:5", out)
        self.assertIn("[mqtt]", out)
        rc, out = check_config(self.write("[mqtt]\nurl = mqtt://127.0.0.1:1\n[sync]\ndevice_name = bed\n"))
        self.assertEqual(rc, 78, out)
        self.assertIn("needs group", out)
        rc, out = check_config(self.write("[mqtt]\nurl = mqtt://127.0.0.1:1\n[sync]\ngroup = a/b\n"))
        self.assertEqual(rc, 78, out)
        self.assertIn("isletd.conf:7", out)
        self.assertIn("topic level", out)
        rc, out = check_config(self.write("[mqtt]\nurl = mqtt://127.0.0.1:1\n[sync]\ngroup = home\ndevice_name = bed\nskew_bound = 5\n"))
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
