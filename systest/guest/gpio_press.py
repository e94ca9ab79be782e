#!/usr/bin/env python3
"""A finger on a button wired between a gpio-sim line and ground (active low, pull-up idle).

  gpio_press.py SIMDIR LINE HOLD_MS [BOUNCE_EDGES]

Writes pull-down/pull-up to SIMDIR/sim_gpioLINE/pull: BOUNCE_EDGES extra edges (default 4) about
1 ms apart when the contact closes and again when it opens, as a real switch bounces, with the
line held low for HOLD_MS in between. Prints the edges' times (CLOCK_MONOTONIC)."""
import os
import sys
import time


def main():
    simdir, line, hold_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    bounce = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    path = os.path.join(simdir, "sim_gpio%d" % line, "pull")
    fd = os.open(path, os.O_WRONLY)
    edges = []

    def level(low):
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, b"pull-down" if low else b"pull-up")
        edges.append((time.monotonic(), "low" if low else "high"))

    def chatter(final_low):
        # bounce edges, alternating, ending on the final level
        state = not final_low
        for _ in range(bounce):
            state = not state
            level(state)
            time.sleep(0.001)
        if state != final_low or not bounce:
            level(final_low)

    t0 = time.monotonic()
    chatter(True)
    rest = hold_ms / 1000.0 - (time.monotonic() - t0)
    if rest > 0:
        time.sleep(rest)
    chatter(False)
    os.close(fd)
    print("GPIO%d: %d edges, low for %.1f ms: %s" % (
        line, len(edges), (edges[-1][0] - t0) * 1000,
        " ".join("%+.1fms:%s" % ((t - t0) * 1000, v) for t, v in edges)))


if __name__ == "__main__":
    main()
