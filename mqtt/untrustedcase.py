"""The base of the untrusted-peer cases (test_untrusted*.py; not a test file itself):
UntrustedCase starts a broker per case and displays on it (in a `[sync] group` unless told
otherwise, a bus capture on request), and has the checks every such case makes: the display
lives on, a request on its control socket is answered, start/pause/resume still work.
"""
import os
import subprocess
import tempfile
import time
import unittest

from attacker import Flood, write_messages
from mqttcase import next_id
from testkit.broker import Broker, wait_until
from testkit.daemon import Daemon
from testkit.runner import failed
from testkit.ssd1306_capture import write_times


def frame_gaps(capture, t_from, t_to):
    """The longest time (s) without a bus write within [t_from, t_to] (time.monotonic()), read
    from a mock-bus capture (its header names CLOCK_MONOTONIC at open), and the writes seen."""
    inside = [t for t in write_times(capture) if t_from <= t <= t_to]
    edges = [t_from] + inside + [t_to]
    return max(b - a for a, b in zip(edges, edges[1:])), len(inside)


class UntrustedCase(unittest.TestCase):
    broker_options = {}
    longMessage = False   # the messages below carry the measured figures themselves

    def setUp(self):
        self.broker = Broker(**self.broker_options)
        self.addCleanup(self.broker.close)
        self.broker.start()
        self.group = f"u{os.getpid()}x{next_id()}"
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
        if failed(self):
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
        path = os.path.join(self.tmp, f"flood{next_id()}.txt")
        write_messages(path, messages)
        f = Flood(self.broker.port, path, rate=rate)
        self.addCleanup(f.kill)
        return f

    def check(self, problems):
        self.assertFalse(problems, "; ".join(problems))

