"""isletd for a harness: a daemon on the mock bus with a temp socket, state dir and config.

The binaries come from $ISLET_BIN (default: the repo's .build/debug). They are copied once per
run into a temp dir (binaries()), so a rebuild during the run changes nothing under the tests;
a binary that is missing for a moment (being linked) is waited for.

Daemon(mqtt={...}) writes a config with [daemon] socket and state_dir, and an [mqtt] section
from the dict (values written as given); `extra` is appended as written (a [web] or [sync]
section). netns="NAME" runs it under `ip netns exec NAME`: the control socket still works
from here (the filesystem is shared). Requests go through testkit.control.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from testkit import control, reaper
from testkit.fixture import Fixture

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_copied = None


def _source_bin():
    """$ISLET_BIN, else this checkout's .build/debug, else (in a git worktree without a build)
    the main worktree's."""
    if os.environ.get("ISLET_BIN"):
        return os.environ["ISLET_BIN"]
    own = os.path.join(ROOT, ".build", "debug")
    if os.path.isdir(own):
        return own
    try:
        common = subprocess.run(["git", "-C", ROOT, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        main = os.path.join(os.path.dirname(common), ".build", "debug")
        if common and os.path.isdir(main):
            return main
    except (OSError, subprocess.SubprocessError):
        pass
    return own


SOURCE_BIN = _source_bin()


class SetupError(Exception):
    """The harness cannot run: the message says what is missing."""


def binaries(wait=120.0):
    """(isletd, isletctl): copies of the binaries taken once for this run."""
    global _copied
    if _copied:
        return _copied
    if not os.path.isdir(SOURCE_BIN):
        raise SetupError(f"no build at {SOURCE_BIN}: build isletd first (swift build), or point ISLET_BIN "
                         f"at the directory that holds isletd and isletctl")
    d = tempfile.mkdtemp(prefix="islet-mqtt-bin-")
    reaper.remove_at_exit(d)
    out = []
    for name in ("isletd", "isletctl"):
        src = os.path.join(SOURCE_BIN, name)
        deadline = time.monotonic() + wait
        while True:
            try:
                # Copy, then check it runs: a half-written binary fails here and is taken again.
                dst = os.path.join(d, name)
                shutil.copy2(src, dst)
                r = subprocess.run([dst, "--version"], capture_output=True, timeout=20)
                if r.returncode == 0:
                    break
                why = f"{src} --version exited {r.returncode}"
            except (OSError, subprocess.SubprocessError) as e:
                why = str(e)
            if time.monotonic() > deadline:
                raise SetupError(f"no usable {name} at {src} after {wait:.0f} s ({why}); build it "
                                 f"(swift build) or point ISLET_BIN at the directory that has it")
            time.sleep(1)
        out.append(dst)
    _copied = tuple(out)
    return _copied


def require_mqtt_support():
    """Fails with a clear message when this isletd has no [mqtt] section (yet)."""
    isletd, _ = binaries()
    d = tempfile.mkdtemp(prefix="islet-mqtt-probe-")
    try:
        conf = os.path.join(d, "probe.conf")
        with open(conf, "w") as f:
            f.write(f"[daemon]\nsocket = {d}/s.sock\nstate_dir = {d}/state\n[mqtt]\nurl = mqtt://127.0.0.1:1\n")
        r = subprocess.run([isletd, "--check-config", "--config", conf], capture_output=True, timeout=20)
        if r.returncode != 0:
            raise SetupError(f"this isletd ({SOURCE_BIN}/isletd) has no working MQTT support: --check-config "
                             f"on a config with [mqtt] url = ... exited {r.returncode}: "
                             f"{(r.stderr or r.stdout).decode(errors='replace').strip()[:500]}")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def check_config(path):
    """Runs `isletd --check-config --config path`: (exit status, stderr + stdout text)."""
    isletd, _ = binaries()
    r = subprocess.run([isletd, "--check-config", "--config", path], capture_output=True, timeout=20)
    return r.returncode, (r.stderr + r.stdout).decode(errors="replace")


def config_text(sock, state, mqtt=None, extra=""):
    lines = ["[daemon]", f"socket = {sock}", f"state_dir = {state}"]
    if mqtt is not None:
        lines.append("[mqtt]")
        lines += [f"{k} = {v}" for k, v in mqtt.items() if v is not None]
    return "\n".join(lines) + "\n" + extra


class Daemon(Fixture):
    def __init__(self, mqtt=None, *, extra="", netns=None, directory=None, log_level="info", env=None):
        self._own(directory, "islet-mqtt-daemon-")
        self.sock = os.path.join(self.dir, "islet.sock")
        self.state = os.path.join(self.dir, "state")
        self.log_path = os.path.join(self.dir, "isletd.log")
        self.config = os.path.join(self.dir, "isletd.conf")
        self.netns = netns
        self.log_level = log_level
        self.extra_env = dict(env or {})
        self.proc = None
        self.write_config(mqtt, extra)

    def write_config(self, mqtt=None, extra=""):
        self.mqtt_settings = dict(mqtt) if mqtt is not None else None
        with open(self.config, "w") as f:
            f.write(config_text(self.sock, self.state, mqtt, extra))

    @property
    def client_id(self):
        return (self.mqtt_settings or {}).get("client_id")

    @property
    def prefix(self):
        s = self.mqtt_settings or {}
        return s.get("topic_prefix") or f"islet/{s.get('client_id')}"

    def topic(self, rest):
        return f"{self.prefix}/{rest}"

    # -- lifecycle --------------------------------------------------------------------------

    def start(self, timeout=10.0):
        isletd, _ = binaries()
        cmd = [isletd, "--bus", "mock", "--buttons", "mock", "--preview", "none", "--config", self.config,
               "--log-level", self.log_level]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns] + cmd   # ip execs isletd: the pid is isletd's
        env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
        env.update(self.extra_env)
        log = open(self.log_path, "ab")
        if self.proc is not None:
            reaper.untrack(self.proc)
        self.proc = reaper.track(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                                  start_new_session=True))
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.request({"op": "status"}, timeout=0.5).get("ok"):
                    return self
            except (OSError, ValueError):
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"isletd exited {self.proc.returncode} at start: {self.log_tail()}")
            if time.monotonic() > deadline:
                self.kill9()
                raise TimeoutError(f"isletd did not answer on {self.sock} within {timeout} s: {self.log_tail()}")
            time.sleep(0.02)

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        if self.running:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    kill = kill9   # what Fixture.close() ends it with

    def stop(self, timeout=10.0):
        """SIGTERM, and waits for the exit; returns the exit status."""
        if self.proc is None:
            return None
        if not reaper.terminate(self.proc, timeout):
            raise RuntimeError(f"isletd did not stop within {timeout} s of SIGTERM")
        return self.proc.returncode

    # -- talking to it ----------------------------------------------------------------------

    def ctl(self, *args, timeout=15):
        """isletctl --socket SOCK ARGS: the CompletedProcess."""
        _, isletctl = binaries()
        return subprocess.run([isletctl, "--socket", self.sock, *args], capture_output=True, timeout=timeout)

    def status(self):
        """`isletctl status --json`, parsed."""
        r = self.ctl("status", "--json")
        if r.returncode != 0:
            raise RuntimeError(f"isletctl status --json exited {r.returncode}: {r.stderr.decode(errors='replace')}")
        return json.loads(r.stdout)

    def mqtt(self):
        """`status.mqtt` of `isletctl status --json` ({} when absent)."""
        return self.status()["status"].get("mqtt") or {}

    def activity(self, timer="meditation"):
        for a in self.status().get("activities") or []:
            if a.get("timer") == timer:
                return a
        return None

    def wait_mqtt(self, pred, timeout=15.0, interval=0.05):
        """Polls status.mqtt until pred(mqtt) holds; returns (mqtt, seconds waited). A string pred
        is a state name. Raises AssertionError with the last status when the time runs out."""
        if isinstance(pred, str):
            want = pred
            pred = lambda m: m.get("state") == want
        t0 = time.monotonic()
        last = None
        while True:
            last = self.mqtt()
            if pred(last):
                return last, time.monotonic() - t0
            if time.monotonic() - t0 > timeout:
                raise AssertionError(f"status.mqtt did not reach the expected state within {timeout} s; last: "
                                     f"{json.dumps(last)}\nisletd log:\n{self.log_tail(1500)}")
            time.sleep(interval)

    def request(self, obj, timeout=5.0):
        """One request on the control socket (JSON Lines), the answer parsed."""
        return control.request(self.sock, obj, timeout)
