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

Prints every figure; exits 1 on the first broken guarantee, with its evidence. The steps are in
soak_kills.py (0, 1) and soak_faults.py (2, 3, full disk), what they share in soak_common.py.
"""
import os, shutil, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soak_common import ISLETD, SEED, fail  # noqa: E402
from soak_faults import abuse, bus_faults, full_disk  # noqa: E402
from soak_kills import kill_at_writes, kill_churn  # noqa: E402


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
