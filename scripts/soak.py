#!/usr/bin/env python3
"""`make soak`: isletd under churn, kills and abuse (docs/RELIABILITY.md). Not part of `make test`.

0. Kill -9 at each write of every intent, deterministically (strace's fault injection: SIGKILL
   on entering the save's rename, and on the directory fsync after it): the restored state is
   the one before the request, or the one after it, never a third.
1. Kill -9 at random points during churn of every intent, replacing starts included, at least
   SOAK_KILLS times (default 100): after each restart the state must be one a user asked for
   (the state before the last request, or the state that request makes) and the time right
   (paused: exact; running: within 1 s).
2. Client abuse: stuck watchers, tricklers and pipelining flooders while a person asks for
   `status` over and over; the person's latency is reported (p50, p99, max), not asserted.
3. Bus faults: the mock bus unplugged for a while during a run: the timer keeps time.

Prints every figure; exits 1 on the first broken guarantee, with its evidence.
"""
import json, os, random, signal, socket, subprocess, sys, tempfile, time, shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def connect(path, timeout=5.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


def read_line(s):
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed")
        buf += chunk
    return buf


def request(path, obj, timeout=5.0):
    s = connect(path, timeout)
    try:
        s.sendall((json.dumps(obj) + "\n").encode())
        return json.loads(read_line(s))
    finally:
        s.close()


def summary(acts):
    """Per timer: what a person sees and what must survive: phase, cycle, frozen seconds."""
    out = {}
    for a in acts or []:
        c = a["content"]
        out[a["timer"]] = {"phase": a["phase"], "cycle": c.get("cycle"), "ended": "ended_at" in a,
                           "frozen": c.get("frozen_seconds"), "left": a.get("remaining_seconds", a.get("elapsed_seconds"))}
    return out


INTENTS = ["start", "start-new", "pause", "resume", "toggle", "reset", "end", "end-default", "expand"]


def make_request(intent, timers):
    t = rng.choice(timers) if timers else "meditation"
    if intent == "start":
        return {"op": "start", "timer": t, "seconds": rng.choice([60, 300, 900]), "cycles": rng.choice([1, 2, 3])}, t
    if intent == "start-new":
        t = f"t{rng.randrange(6)}"
        return {"op": "start", "timer": t, "seconds": 600, "kind": rng.choice(["countdown", "stopwatch"])}, t
    if intent == "end":
        return {"op": "end", "timer": t, "dismissal": "immediate"}, t
    if intent == "end-default":
        return {"op": "end", "timer": t}, t
    return {"op": intent if intent != "reset" else "reset", "timer": t}, t


def plausible(before, after, intent, target, answer):
    """Is `after` (restored) the state before the request, or one the request makes?"""
    ids_before, ids_after = set(before), set(after)
    if answer is not None and answer.get("ok"):
        expected = summary(answer.get("activities"))
        return set(expected) == ids_after, "the restored timers differ from the answered state"
    allowed = [ids_before]
    # A toggle of a timer without an activity starts it (README: toggle from idle starts the session).
    if intent.startswith("start") or (intent == "toggle" and target not in ids_before):
        allowed.append(ids_before | {target})
    if intent in ("end", "reset"):
        allowed.append(ids_before - {target})
    if ids_after not in allowed:
        return False, f"timers {sorted(ids_after)} are neither before ({sorted(ids_before)}) nor after the {intent} of {target}"
    return True, ""


def check_times(before, after, elapsed, untouched):
    for t in untouched:
        b, a = before.get(t), after.get(t)
        if b is None or a is None or b["phase"] != a["phase"] or b["ended"] or a["ended"]:
            continue
        if b["phase"] == "paused" and b["frozen"] != a["frozen"]:
            return f"paused timer {t}: frozen {b['frozen']} became {a['frozen']}"
        if b["phase"] == "running" and b["left"] is not None and a["left"] is not None:
            stopwatch = a["left"] > b["left"]
            exp = b["left"] + elapsed if stopwatch else b["left"] - elapsed
            if abs(exp - a["left"]) > 1.0 and a["left"] > 0:
                return f"running timer {t}: {a['left']:.3f} s after restart, expected {exp:.3f} ± 1"
    return None


def kill_churn(tmp):
    d = Daemon(tmp)
    d.start()
    kills = intents_seen = 0
    counts = {i: 0 for i in INTENTS}
    while kills < KILLS:
        before_resp = request(d.sock, {"op": "status"})
        before = summary(before_resp.get("activities"))
        intent = rng.choice(INTENTS)
        req, target = make_request(intent, list(before) or ["meditation"])
        counts[intent] += 1
        # Send, and kill at a random instant: before, during or after the daemon's write.
        s = connect(d.sock)
        s.sendall((json.dumps(req) + "\n").encode())
        sent_at = time.monotonic()
        time.sleep(rng.choice([0, 0, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.02]))
        d.kill9()
        killed_at = time.monotonic()
        answer = None
        try:
            s.settimeout(0.2)
            answer = json.loads(read_line(s))
        except (OSError, ValueError):
            pass
        s.close()
        kills += 1
        d.start()
        after_resp = request(d.sock, {"op": "status"})
        after = summary(after_resp.get("activities"))
        ok, why = plausible(before, after, intent, target, answer)
        if not ok:
            fail(f"kill {kills} during {json.dumps(req)} (answered: {answer is not None}): {why}\n before {before}\n after  {after}")
        err = check_times(before, after, time.monotonic() - sent_at + (0 if answer else 0), [t for t in before if t != target])
        if err:
            fail(f"kill {kills} during {json.dumps(req)}: {err}")
        intents_seen += 1
    d.stop()
    print(f"soak: kill -9 during churn: {kills} kills survived, every restored state one a user asked for; "
          f"intents: {', '.join(f'{k} {v}' for k, v in counts.items())}", flush=True)


WRITE_CASES = [
    ({"op": "start", "timer": "fresh", "seconds": 120}, "fresh"),
    ({"op": "start", "timer": "meditation", "seconds": 900, "cycles": 2}, "meditation"),   # a replacing start
    ({"op": "pause", "timer": "meditation"}, "meditation"),
    ({"op": "resume", "timer": "other"}, "other"),
    ({"op": "toggle", "timer": "meditation"}, "meditation"),
    ({"op": "reset", "timer": "meditation"}, "meditation"),
    ({"op": "end", "timer": "other", "dismissal": "immediate"}, "other"),
    ({"op": "end", "timer": "meditation"}, "meditation"),
]


def strace_count(log, name):
    try:
        return sum(1 for l in open(log) if f"{name}(" in l and "resumed" not in l)
    except OSError:
        return 0


def kill_at_writes(tmp):
    if not shutil.which("strace"):
        fail("strace is missing (Debian package strace): it injects the kills at each write")
    done = 0
    for req, target in WRITE_CASES:
        for point in ("rename", "fsync"):
            case = os.path.join(tmp, f"{done}")
            os.makedirs(case)
            d = Daemon(case)
            d.start()
            request(d.sock, {"op": "start", "timer": "meditation", "seconds": 600})
            request(d.sock, {"op": "start", "timer": "other", "seconds": 300})
            request(d.sock, {"op": "pause", "timer": "other"})
            d.stop()
            # Count the calls the start-up makes, then kill on the request's own: the save's
            # rename (entered, not done: the state before) or the directory fsync after it.
            log = os.path.join(case, "strace")
            d.wrapper = ["strace", "-f", "-qq", "-o", log, "-e", "trace=rename,fsync"]
            d.start()
            base = strace_count(log, point)
            before = summary(request(d.sock, {"op": "status"})["activities"])
            d.stop()
            nth = base + (1 if point == "rename" else 2)
            d.wrapper = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={point}",
                         "-e", f"inject={point}:signal=SIGKILL:when={nth}"]
            d.start()
            try:
                answer = request(d.sock, req, timeout=2)
            except OSError:
                answer = None
            d.proc.wait(timeout=10)
            d.wrapper = []
            d.start()
            after = summary(request(d.sock, {"op": "status"})["activities"])
            d.stop()
            if answer is not None:
                fail(f"{json.dumps(req)}: the daemon answered although it was killed at its {point} (nth {nth})")
            if point == "rename" and after != before and set(after) == set(before):
                # Killed before the rename: the file is the one before (times move on, phases do not).
                if any(after[t]["phase"] != before[t]["phase"] or after[t]["frozen"] != before[t]["frozen"] for t in before):
                    fail(f"{json.dumps(req)} killed before its rename: {after} is not the state before {before}")
            ok, why = plausible(before, after, req["op"] if req["op"] != "reset" else "reset", target, None)
            if not ok:
                fail(f"{json.dumps(req)} killed at its {point}: {why}")
            if point == "rename" and set(after) != set(before):
                fail(f"{json.dumps(req)} killed before its rename left {sorted(after)}, not the state before {sorted(before)}")
            done += 1
    print(f"soak: kill -9 at each write: {done} kills ({len(WRITE_CASES)} intents x before and after the rename), "
          f"each restored state the one before or after the request", flush=True)


def abuse(tmp):
    d = Daemon(tmp)
    d.start()
    request(d.sock, {"op": "start", "seconds": 600})
    stuck = []
    for _ in range(8):
        s = connect(d.sock)
        s.sendall(b'{"op":"watch"}\n')
        stuck.append(s)   # never read
    tricklers = [connect(d.sock) for _ in range(8)]
    stop = time.monotonic() + float(os.environ.get("SOAK_ABUSE_SECONDS", "20"))
    import threading
    flooded = [0]

    def flooder():
        try:
            s = connect(d.sock, timeout=10)
            line = b'{"op":"status"}\n' * 200
            while time.monotonic() < stop:
                s.sendall(line)
                got = 0
                buf = b""
                while got < 200:
                    chunk = s.recv(1 << 20)
                    if not chunk:
                        return
                    got += chunk.count(b"\n")
                flooded[0] += 200
            s.close()
        except OSError:
            pass

    threads = [threading.Thread(target=flooder) for _ in range(4)]
    for t in threads:
        t.start()
    lat = []
    i = 0
    while time.monotonic() < stop:
        i += 1
        if i % 10 == 0:
            for t in tricklers:
                try:
                    t.sendall(b" ")
                except OSError:
                    pass
        t0 = time.monotonic()
        r = request(d.sock, {"op": "status"}, timeout=10)
        lat.append((time.monotonic() - t0) * 1000)
        if not r.get("ok"):
            fail(f"a person's status was refused during abuse: {r}")
        time.sleep(0.02)
    for t in threads:
        t.join()
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    print(f"soak: abuse (4 flooders, 8 stuck watchers, 8 tricklers): a person's status over {len(lat)} requests: "
          f"p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, max {lat[-1]:.1f} ms; flooders got {flooded[0]} answers", flush=True)
    for s in stuck + tricklers:
        s.close()
    d.stop()


def bus_faults(tmp):
    d = Daemon(tmp, ["--mock-unplug", "1:3"])
    d.start()
    request(d.sock, {"op": "start", "seconds": 60})
    left0 = request(d.sock, {"op": "status"})["activities"][0]["remaining_seconds"]
    t0 = time.monotonic()
    time.sleep(2)
    st = request(d.sock, {"op": "status"})
    if st["status"]["panel_present"]:
        fail("the unplugged mock panel was reported present")
    time.sleep(4)
    st = request(d.sock, {"op": "status"})
    left = st["activities"][0]["remaining_seconds"]
    if abs((left0 - (time.monotonic() - t0)) - left) > 1:
        fail(f"the timer lost time over a bus fault: {left} left, expected {left0 - (time.monotonic() - t0):.2f}")
    if not st["status"]["panel_present"]:
        fail("the replugged mock panel did not come back")
    print(f"soak: bus fault (3 s unplugged): the timer kept time, the panel came back, {st['status']['bus_errors']} bus errors counted", flush=True)
    d.stop()


def full_disk(tmp):
    """Issue 23 §2 on a real full filesystem: a 64 KiB tmpfs as the state directory, filled up."""
    if os.geteuid() != 0:
        print("soak: full disk: skipped (mounting a tmpfs needs root)", flush=True)
        return
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0750", "tmpfs", state]).returncode != 0:
        print("soak: full disk: skipped (mount -t tmpfs failed here)", flush=True)
        return
    try:
        d = Daemon(tmp, ["--log-level", "notice"])   # the later flag wins: the recovery is a notice
        d.start()
        request(d.sock, {"op": "start", "seconds": 300, "timer": "full"})
        filler = os.path.join(state, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"\0" * 512) > 0:
                pass
        except OSError:
            pass   # ENOSPC: the filesystem is full
        finally:
            os.close(fd)
        paused = request(d.sock, {"op": "pause", "timer": "full"})
        frozen = paused["activities"][0]["remaining_seconds"]
        st = request(d.sock, {"op": "status"})
        if not st["status"].get("store_error"):
            fail("a save on a full filesystem did not set store_error")
        on_disk = json.load(open(os.path.join(state, "activities.json")))["activities"][0]["content"]["phase"]
        if on_disk != "running":
            fail(f"the full filesystem took the pause after all ({on_disk}): the test proves nothing")
        os.remove(filler)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            st = request(d.sock, {"op": "status"})
            on_disk = json.load(open(os.path.join(state, "activities.json")))["activities"][0]["content"]["phase"]
            if not st["status"].get("store_error") and on_disk == "paused":
                break
            time.sleep(0.1)
        else:
            fail(f"space came back but the save was not retried (file says {on_disk}, store_error {st['status'].get('store_error')})")
        healed = time.monotonic() - (deadline - 5)
        d.kill9()
        d.start()
        after = request(d.sock, {"op": "status"})["activities"][0]
        if after["phase"] != "paused" or abs(after["remaining_seconds"] - frozen) > 0.001:
            fail(f"after kill -9 the timer came back {after['phase']} at {after['remaining_seconds']} s, not paused at {frozen} s")
        log = open(os.path.join(tmp, "log")).read()
        if log.count("the state file is saved again") != 1:
            fail("the recovery was not logged exactly once")
        print(f"soak: full disk (64 KiB tmpfs): the pause reached the file {healed:.1f} s after space came back; kill -9 restored it paused at {frozen} s", flush=True)
        d.stop()
    finally:
        subprocess.run(["umount", "-l", state])


def main():
    if not os.access(ISLETD, os.X_OK):
        fail(f"{ISLETD} is missing: make build first")
    base = tempfile.mkdtemp(prefix="islet-soak-")
    try:
        t0 = time.monotonic()
        for name, step in (("writes", kill_at_writes), ("kills", kill_churn), ("abuse", abuse), ("bus", bus_faults),
                           ("full", full_disk)):
            d = os.path.join(base, name)
            os.makedirs(d)
            step(d)
        print(f"soak: passed in {time.monotonic() - t0:.0f} s (seed {SEED})", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
