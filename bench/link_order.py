#!/usr/bin/env python3
"""`make link-order`: the functions a desk's isletd runs, in the order it first runs them, for
lld's --symbol-ordering-file (scripts/release.sh reads scripts/link-order.txt).

Why: the kernel maps the neighbours of every code page isletd faults on (fault-around, 64 KiB),
so code touched here and there across 10 MB of text kept ~6 MB of the binary resident. Laid
side by side, the same functions fill ~3 MB (docs/PERFORMANCE.md, "Memory").

How: isletd (the release build, debug info stripped: valgrind cannot read Swift's DWARF) runs
under valgrind's callgrind on the mock bus at 128x32 and 128x64, through what `make bench`
drives: a countdown, presses, pause and resume, a second activity, a stopwatch, status, reset,
idle, in two languages. Every function with a cost in the binary is listed once, by mangled
name. A name the code no longer has is ignored by the linker (--no-warn-symbol-ordering), so a
stale list only lays out less well; regenerate it after large changes.

    python3 bench/link_order.py [--isletd .build/release/isletd] [--out scripts/link-order.txt]
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from testkit import control  # noqa: E402
from testkit.wait import wait_until  # noqa: E402

# The bench's daemon figures (DaemonBench, DaemonPresses) and what a person does at the desk.
SCENARIO = [
    ({"op": "start", "seconds": 600}, 3.0),
    *[({"op": "press", "button": "toggle", "hold_ms": 120}, 0.4)] * 4,
    ({"op": "pause"}, 1.5),
    ({"op": "resume"}, 2.0),
    ({"op": "status"}, 0.2),
    ({"op": "start", "timer": "second", "seconds": 1200}, 2.0),
    ({"op": "reset", "timer": "second"}, 0.5),
    ({"op": "reset"}, 2.0),
    ({"op": "start", "seconds": 90, "cycles": 2, "language": "ar", "title": "Morning"}, 2.0),
    ({"op": "expand"}, 1.0),
    ({"op": "reset"}, 1.0),
    ({"op": "start", "timer": "stopwatch", "kind": "stopwatch"}, 2.0),
    ({"op": "end", "timer": "stopwatch", "dismissal": {"after_seconds": 1}}, 2.0),
]


def profile(isletd, size, work):
    """The callgrind output of one run of the scenario at `size`."""
    sock, state, out = (os.path.join(work, n) for n in (f"s-{size}", f"state-{size}", f"cg-{size}.out"))
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--compress-strings=no",
           "--demangle=no", isletd, "--bus", "mock", "--buttons", "mock", "--preview", "none",
           "--size", size, "--socket", sock, "--state-dir", state]
    with open(os.path.join(work, f"valgrind-{size}.log"), "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until("isletd under valgrind serving its socket", lambda: os.path.exists(sock), timeout=120)
        for req, pause in SCENARIO:
            answer = control.request(sock, req, timeout=30)
            if not answer.get("ok", True):
                raise RuntimeError(f"isletd refused {req}: {answer}")
            time.sleep(pause)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    return out


def functions(callgrind_out, binary_name):
    """Functions with a cost in the binary, in the order callgrind first lists them."""
    names, obj = [], None
    with open(callgrind_out) as f:
        for line in f:
            if line.startswith("ob="):
                obj = line[3:].strip()
            elif line.startswith("fn=") and obj and os.path.basename(obj) == binary_name:
                names.append(line[3:].strip())
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--isletd", default=os.path.join(ROOT, ".build/release/isletd"))
    ap.add_argument("--out", default=os.path.join(ROOT, "scripts/link-order.txt"))
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("link-order: valgrind is missing (sudo apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="islet-link-order-") as work:
        binary = os.path.join(work, "isletd")
        subprocess.run(["strip", "--strip-debug", "-o", binary, args.isletd], check=True)
        order, seen = [], set()
        for size in ("128x32", "128x64"):
            for name in functions(profile(binary, size, work), "isletd"):
                if name not in seen:
                    seen.add(name)
                    order.append(name)
    if len(order) < 500:
        sys.exit(f"link-order: only {len(order)} functions seen: the profile did not run (see valgrind's log)")
    with open(args.out, "w") as f:
        f.write("\n".join(order) + "\n")
    print(f"link-order: {len(order)} functions in {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
