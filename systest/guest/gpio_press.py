#!/usr/bin/env python3
"""A finger on a button wired between a gpio-sim line and ground (active low, pull-up idle).

  gpio_press.py SIMDIR LINE HOLD_MS [BOUNCE_EDGES]

Writes pull-down/pull-up to SIMDIR/sim_gpioLINE/pull: BOUNCE_EDGES extra edges (default 4) when
the contact closes and again when it opens, as a real switch bounces (spikes to the old level
about 1 ms apart), with the line held low for HOLD_MS in between. Prints the edges' times (CLOCK_MONOTONIC).
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

    # A contact bounces for a few ms; a guest whose vCPU is descheduled can sleep far longer
    # than asked. A spike written after such a stall would land outside the daemon's 30 ms
    # debounce window and be, correctly, a second press (seen once on trixie: a 35 ms stall
    # turned the resume into resume + pause). So the spikes have no dwell (the line goes back
    # at once), the sleeps are taken at the final level, and no spike is written once the
    # chatter has run past its budget.
    budget = 0.010
    stalls = []

    def chatter(final_low):
        start = time.monotonic()
        for i in range(bounce):
            if i % 2 == 0:
                level(final_low)
                time.sleep(0.001)
            else:
                if time.monotonic() - start > budget:
                    break
                level(not final_low)
        if not edges or edges[-1][1] != ("low" if final_low else "high"):
            level(final_low)
        late = [t - start for t, v in edges if t >= start and v != ("low" if final_low else "high")
                and t - start > 2 * budget]
        if late:
            stalls.append(late[0])

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
    if stalls:
        # Not a finger's press any more: say so, so the step fails as the guest's fault.
        print("gpio_press: the guest stalled; a bounce spike came %.1f ms into its chatter, past "
              "the debounce window, so this was not one press" % (stalls[0] * 1000), file=sys.stderr)
    print("GPIO%d: %d edges, low for %.1f ms: %s" % (
        line, len(edges), (edges[-1][0] - t0) * 1000,
        " ".join("%+.1fms:%s" % ((t - t0) * 1000, v) for t, v in edges)))


if __name__ == "__main__":
    main()
