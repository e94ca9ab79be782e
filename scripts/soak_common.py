"""What every step of `make soak` (scripts/soak.py) shares: the binary under test, the seed,
isletd started on the mock bus with the soak's own flags, the state a person sees, and failing.

The control socket is testkit.control's client. The daemon is started here, not by
testkit.daemon: the soak runs the release binary from SOAK_BIN in place (no copy), with
--socket/--state-dir/--log-level flags instead of a config file, optionally under strace (whose
fault injection kills it at a chosen write), and a failed start ends the soak with its log.
"""
import os, random, signal, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
# The steps take the client from here.
from testkit.control import connect, read_answer, request, send  # noqa: E402,F401

BIN = os.environ.get("SOAK_BIN", os.path.join(ROOT, ".build", "debug"))
ISLETD = os.path.join(BIN, "isletd")
KILLS = int(os.environ.get("SOAK_KILLS", "100"))
SEED = int(os.environ.get("SOAK_SEED", "1"))
rng = random.Random(SEED)


def fail(msg):
    print(f"soak: FAILED: {msg}", flush=True)
    sys.exit(1)


class Daemon:
    def __init__(self, tmp, extra=()):
        self.tmp, self.extra = tmp, list(extra)
        self.sock = os.path.join(tmp, "islet.sock")
        self.proc = None
        self.wrapper = []

    def start(self):
        self.proc = subprocess.Popen(self.wrapper + [ISLETD, "--bus", "mock", "--socket", self.sock, "--state-dir",
                                      os.path.join(self.tmp, "state"), "--log-level", "warning"] + self.extra,
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.tmp, "log"), "ab"),
                                     env={k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")})
        for _ in range(400):
            try:
                if request(self.sock, {"op": "status"}, timeout=0.5).get("ok"):
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                fail(f"isletd exited {self.proc.returncode} at start: {open(os.path.join(self.tmp, 'log')).read()[-2000:]}")
            time.sleep(0.01)
        fail("isletd did not answer within 4 s")

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            if self.wrapper:
                # Under strace, signal the daemon itself (its pid is in status); strace follows it out.
                pid = request(self.sock, {"op": "status"})["status"]["pid"]
                os.kill(pid, signal.SIGTERM)
            else:
                self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=10)


def summary(acts):
    """Per timer: what a person sees and what must survive: phase, cycle, frozen seconds."""
    out = {}
    for a in acts or []:
        c = a["content"]
        out[a["timer"]] = {"phase": a["phase"], "cycle": c.get("cycle"), "ended": "ended_at" in a,
                           "frozen": c.get("frozen_seconds"), "left": a.get("remaining_seconds", a.get("elapsed_seconds"))}
    return out


