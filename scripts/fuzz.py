#!/usr/bin/env python3
"""`make fuzz` / `make fuzz-replay` / `make fuzz-campaign`: libFuzzer over the eleven inputs isletd
reads from outside (Sources/islet-fuzz): protocol (a request line), config (a config file),
state (the state file), capture (a bus capture), the network's: sync (group records, merged,
held, saved), beacon (clock beacons), command (MQTT commands with correlation data), topics
(retained topics read back, discovery keys), web (the web page's guard: Host, Origin,
cookie, password), icon (a custom icon: PNG or PBM bytes, and the same as base64) and settings
(the page's settings.json and a backup's upload). Seed
corpora live in Tests/Fuzz/<target>/; an input that ever made a target
fail is kept there (crash-*), so every later run replays it.

  scripts/fuzz.py replay            fixed seed and run count per target (CI: deterministic)
  scripts/fuzz.py explore           FUZZ_SECONDS per target (default 60), new finds kept in
                                    .build/fuzz/corpus-<target>, failures in Tests/Fuzz/<target>
  scripts/fuzz.py campaign          FUZZ_CAMPAIGN_RUNS executions per target (default 10,000,000;
                                    config 1,000,000), at most FUZZ_CAMPAIGN_SECONDS (1800) each,
                                    one process on one core; corpus as for explore
Settings: FUZZ_BIN=.build/fuzz/debug/islet-fuzz FUZZ_RUNS=20000 FUZZ_SECONDS=60
FUZZ_TARGETS="protocol config state capture sync beacon command topics web icon settings"
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from testkit import reaper  # noqa: E402  (the fuzzer and the scratch dir go on every way out)

TARGETS = "protocol config state capture sync beacon command topics web icon settings"
# What of a failed run's log is worth a person's eye (the fuzzer's own report).
REPORT = re.compile(rb"islet-fuzz:|ERROR|SUMMARY|Test unit written")


def env(name, default):
    """The shell's ${NAME:-default}: unset and empty both mean the default."""
    return os.environ.get(name) or default


def die(message, status=1):
    print(message, file=sys.stderr, flush=True)
    sys.exit(status)


def listed(folder):
    """What `ls folder` lists: every entry but the hidden ones."""
    return sorted(n for n in os.listdir(folder) if not n.startswith("."))


def replay_copy(seeds, scratch):
    """libFuzzer adds what it finds to its first corpus folder: a scratch copy, so a replay
    never changes the repository."""
    os.makedirs(scratch, exist_ok=True)
    names = listed(seeds)
    if not names:
        die(f"islet: the seed corpus {seeds} is empty")
    for n in names:
        if os.path.isdir(os.path.join(seeds, n)):
            die(f"islet: {os.path.join(seeds, n)} is a folder: a seed corpus holds files only")
        shutil.copyfile(os.path.join(seeds, n), os.path.join(scratch, n))


def arguments(mode, t, seeds, work):
    """The fuzzer's arguments and the corpus folder whose size the line reports; None for a mode
    that does not exist."""
    if mode == "replay":
        # One process, fixed seed: the same run twice.
        corpus = os.path.join(work, t)
        replay_copy(seeds, corpus)
        return ["-seed=1", f"-runs={env('FUZZ_RUNS', '20000')}", f"-artifact_prefix={work}/{t}-", corpus], corpus
    if mode not in ("explore", "campaign"):
        return None
    corpus = os.path.join(ROOT, ".build", "fuzz", f"corpus-{t}")
    os.makedirs(corpus, exist_ok=True)
    prefix = f"-artifact_prefix={seeds}/crash-"
    if mode == "explore":
        return [f"-max_total_time={env('FUZZ_SECONDS', '60')}", prefix, corpus, seeds], corpus
    runs = env("FUZZ_CAMPAIGN_RUNS", "1000000" if t == "config" else "10000000")
    return [f"-runs={runs}", f"-max_total_time={env('FUZZ_CAMPAIGN_SECONDS', '1800')}", "-print_final_stats=1",
            prefix, corpus, seeds], corpus


def run(binary, t, args, log):
    """Runs one target, its output into `log`; returns the exit status (127 when it cannot start,
    as a shell would)."""
    with open(log, "wb") as out:
        try:
            proc = reaper.track(subprocess.Popen([binary, *args], stdout=out, stderr=subprocess.STDOUT,
                                                 env={**os.environ, "ISLET_FUZZ_TARGET": t}))
        except OSError as e:
            out.write(f"islet-fuzz: cannot start {binary}: {e}\n".encode())
            return 127
        status = proc.wait()
        reaper.untrack(proc)
        return status


def executions(log):
    """libFuzzer's last status line: "#N DONE cov: … exec/s: E …" or "#N pulse …"; None when
    there is none."""
    last = None
    with open(log, "rb") as f:
        for line in f:
            m = re.match(rb"#(\d+)", line)
            if m:
                last = int(m.group(1))
    return last


def report_failure(mode, t, status, log, seeds, work):
    with open(log, "rb") as f:
        lines = [ln.rstrip(b"\n").decode(errors="replace") for ln in f if REPORT.search(ln)][:20]
    for ln in lines:
        print(ln, file=sys.stderr)
    if not lines:
        # The fuzzer said nothing of its own (it never started, or is not libFuzzer).
        print(f"islet: fuzz {t}: exit status {status}, no libFuzzer report in its output", file=sys.stderr)
    sys.stderr.flush()
    found = glob.glob(f"{work}/{t}-crash-*")
    if mode == "replay" and found:
        for path in found:
            shutil.copy(path, seeds)
        print(f"islet: the failing input was copied into {seeds}/: fix the cause, keep the input", file=sys.stderr,
              flush=True)


def main(argv):
    binary = env("FUZZ_BIN", os.path.join(ROOT, ".build", "fuzz", "debug", "islet-fuzz"))
    mode = argv[1] if len(argv) > 1 and argv[1] else "replay"
    if not os.access(binary, os.X_OK):
        die(f"islet: {binary} is missing: make fuzz builds it")
    # ASan's leak check at exit reports the Swift runtime's one-time allocations: not ours to fix.
    os.environ["ASAN_OPTIONS"] = env("ASAN_OPTIONS", "detect_leaks=0")

    work = tempfile.mkdtemp(prefix="islet-fuzz.", dir=env("TMPDIR", "/tmp"))
    reaper.on_exit(lambda: shutil.rmtree(work, ignore_errors=True))
    status = 0
    total = 0
    for t in env("FUZZ_TARGETS", TARGETS).split():
        seeds = os.path.join(ROOT, "Tests", "Fuzz", t)
        if not os.path.isdir(seeds):
            die(f"islet: no seed corpus {seeds}")
        chosen = arguments(mode, t, seeds, work)
        if chosen is None:
            die("usage: scripts/fuzz.py replay|explore|campaign", 64)
        args, corpus = chosen
        log = os.path.join(work, f"{t}.log")
        start = time.monotonic_ns()
        code = run(binary, t, args, log)
        ms = (time.monotonic_ns() - start) // 1_000_000
        result = "ok" if code == 0 else "FAILED"
        execs = executions(log)
        total += execs or 0
        rate = (execs or 0) * 1000 // (ms if ms > 0 else 1)
        shown = "?" if execs is None else str(execs)
        print(f"islet: fuzz {t:<8} {result:<6} {shown:>9} executions in {ms // 1000:4d}.{ms % 1000 // 100} s "
              f"({rate} exec/s), corpus {len(listed(corpus))} inputs", flush=True)
        if code != 0:
            status = 1
            report_failure(mode, t, code, log, seeds, work)
    print(f"islet: fuzz {mode}: {total} executions in all", flush=True)
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(130)
