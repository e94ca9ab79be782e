"""`make soak` steps 0 and 1: kill -9 at each write of every intent (strace's fault injection),
and at random points during churn of every intent; after each restart the state must be one a
user asked for (scripts/soak.py says more)."""
import json, os, shutil, time

from soak_common import KILLS, Daemon, connect, fail, read_answer, request, rng, send, summary


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
        send(s, req)
        sent_at = time.monotonic()
        time.sleep(rng.choice([0, 0, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.02]))
        d.kill9()
        killed_at = time.monotonic()
        answer = None
        try:
            s.settimeout(0.2)
            answer = read_answer(s)
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
