"""The base of the sync test cases (test_sync*.py; not a test file itself): SyncCase starts a
broker per case and displays in one `[sync] group` on it, and reads what each shows: its
emulated panel (status.panel), its activities, or the frame its bus capture leaves when
replayed with `isletctl replay` (read with testkit/ssd1306_pbm.py).
"""
import glob
import os
import subprocess
import tempfile
import unittest

from mqttcase import next_id
from testkit.broker import Broker, wait_until
from testkit.daemon import Daemon, SetupError, binaries
from testkit.runner import failed
from testkit.ssd1306_pbm import read_pbm


def faketime_library():
    """libfaketime (Debian's faketime package), for a display whose clock is off."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))
    if not found:
        raise SetupError("the clock-skew case needs libfaketime: apt-get install faketime")
    return found[0]


def pbm_pixels(data):
    """A PBM (P1 or P4) as a set of (x, y) of lit pixels."""
    with tempfile.NamedTemporaryFile(prefix="islet-sync-", suffix=".pbm") as f:
        f.write(data)
        f.flush()
        rows = read_pbm(f.name)
    return {(x, y) for y, row in enumerate(rows) for x, v in enumerate(row) if v}


class SyncCase(unittest.TestCase):
    def setUp(self):
        self.broker = Broker()
        self.addCleanup(self.broker.close)
        self.broker.start()
        self.group = f"g{os.getpid()}x{next_id()}"

    def display(self, name, start=True, env=None, directory=None, capture=None, group=None, login=None):
        settings = {"url": self.broker.url, "client_id": f"{self.group}-{name}", "keepalive": 60, "discovery": "off"}
        if login:
            # (username, password): the password in a 0600 file of its own, as isletd requires.
            pw_dir = tempfile.mkdtemp(prefix="islet-sync-pw-")
            self.addCleanup(lambda: subprocess.run(["rm", "-rf", pw_dir]))
            pw = os.path.join(pw_dir, "password")
            with open(pw, "w") as f:
                f.write(login[1] + "\n")
            os.chmod(pw, 0o600)
            settings.update(username=login[0], password_file=pw)
        extra = ""
        if capture:
            extra += f"[display]\ncapture = {capture}\n"
        extra += f"[sync]\ngroup = {group or self.group}\ndevice_name = {name}\n"
        d = Daemon(settings, extra=extra, env=env, directory=directory, log_level=os.environ.get("SYNC_LOG", "info"))
        d.name = name
        self.addCleanup(d.close)
        self.addCleanup(self._log_on_failure, d)
        if start:
            self.start(d)
        return d

    def start(self, d):
        d.start()
        d.wait_mqtt("connected")
        wait_until(f"{d.name} joins its group", lambda: self.sync(d).get("joined"))
        return d

    def _log_on_failure(self, d):
        if failed(self):
            print(f"\n--- isletd log of {d.name} ---\n{d.log_tail(3000)}")

    @staticmethod
    def sync(d):
        return d.status()["status"].get("sync") or {}

    @staticmethod
    def panel(d):
        p = d.status()["status"].get("panel") or {}
        return (p.get("on"), p.get("pages"))

    def same_frame(self, displays, what, timeout=10.0):
        """Waits until every display's emulated panel holds the same lit image; returns it."""
        def check():
            frames = [self.panel(d) for d in displays]
            return frames[0] if all(f == frames[0] for f in frames) and frames[0][0] else None
        return wait_until(what, check, timeout=timeout)

    @staticmethod
    def replayed(capture):
        """The lit pixels of the frame a bus capture leaves on a 128x64 SSD1306 (isletctl replay)."""
        _, isletctl = binaries()
        r = subprocess.run([isletctl, "replay", capture, "--controller", "ssd1306", "--size", "128x64", "-o", "-"],
                           capture_output=True, timeout=20)
        if r.returncode != 0:
            raise AssertionError(f"isletctl replay {capture}: {r.stderr.decode(errors='replace')}")
        return pbm_pixels(r.stdout)

    def phases(self, displays, timer="meditation"):
        out = []
        for d in displays:
            a = d.activity(timer)
            out.append(a["phase"] if a else None)
        return out

