#!/usr/bin/env python3
"""A finger on a button wired between a gpio-sim line and ground (active low, pull-up idle).

  gpio_press.py SIMDIR LINE HOLD_MS [BOUNCE_EDGES]

Writes pull-down/pull-up to SIMDIR/sim_gpioLINE/pull: BOUNCE_EDGES extra edges (default 4) about
1 ms apart when the contact closes and again when it opens, as a real switch bounces, with the
line held low for HOLD_MS in between. Prints the edges' times (CLOCK_MONOTONIC).
Environment: PRESS_MARKER=TEXT writes "TEXT closes" to the kernel's trace_marker just before the
first edge of the closing contact and "TEXT opens" just before the first edge of the opening one
(anchors for the press-to-bus figure, timestamped by the kernel); PRESS_JSON=FILE writes the
edges there as {"edges": [[monotonic, "low"|"high"], ...]}."""
import json
import os
import sys
import time


def main():
    simdir, line, hold_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    bounce = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    path = os.path.join(simdir, "sim_gpio%d" % line, "pull")
    fd = os.open(path, os.O_WRONLY)
    edges = []
    marker = os.environ.get("PRESS_MARKER")
    mfd = os.open("/sys/kernel/tracing/trace_marker", os.O_WRONLY) if marker else None

    def mark(what):
        if mfd is not None:
            os.write(mfd, ("%s %s" % (marker, what)).encode())

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

    mark("closes")
    t0 = time.monotonic()
    chatter(True)
    rest = hold_ms / 1000.0 - (time.monotonic() - t0)
    if rest > 0:
        time.sleep(rest)
    mark("opens")
    chatter(False)
    os.close(fd)
    if mfd is not None:
        os.close(mfd)
    if os.environ.get("PRESS_JSON"):
        with open(os.environ["PRESS_JSON"], "w") as f:
            json.dump({"line": line, "edges": edges}, f)
    print("GPIO%d: %d edges, low for %.1f ms: %s" % (
        line, len(edges), (edges[-1][0] - t0) * 1000,
        " ".join("%+.1fms:%s" % ((t - t0) * 1000, v) for t, v in edges)))


if __name__ == "__main__":
    main()
