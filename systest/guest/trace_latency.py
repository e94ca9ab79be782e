#!/usr/bin/env python3
"""How long from trace_marker lines to the first write to the panel after them, by the kernel's
trace timestamps (trace_clock=mono, so CLOCK_MONOTONIC: the same clock as Python's
time.monotonic() in the guest).

  trace_latency.py TRACE --marker TEXT [--marker TEXT2 ...] [--bus 1] [--addr 0x3c]
                   [--edges EDGES.json] [--quiet S]

The first --marker (its last line in the trace) is the anchor: the reaction is the first write
transaction to the panel after it (a failed SMBus write does not count). Of the markers given,
the last one written before that write is the one that acted (e.g. "opens" when a button acts on
its release): `latency_ms` is from it to the write; `from_marker_ms` gives the time from each.
`writes_before` counts the writes in the QUIET seconds before the anchor (default 0.5: with any,
a periodic frame could be mistaken for the reaction). With --edges (gpio_press.py's PRESS_JSON:
the times of the edges written to gpio-sim) also the last edge before the write and the time
from it to the write. Prints JSON. Exit 1 when there is no write after the anchor, 2 when the
anchor is missing."""
import argparse
import json
import os
import sys

# Beside it in the guest (/host/guest); one folder up in the source tree (systest/).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
from decode_ssd1306_trace import MARKER_RE, transactions  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--marker", action="append", required=True)
    ap.add_argument("--bus", type=int, default=1)
    ap.add_argument("--addr", type=lambda s: int(s, 0), default=0x3C)
    ap.add_argument("--edges")
    ap.add_argument("--quiet", type=float, default=0.5)
    args = ap.parse_args(argv)
    with open(args.trace, errors="replace") as f:
        lines = f.readlines()
    marks = [(float(m["ts"]), m["text"].strip()) for m in (MARKER_RE.search(l) for l in lines) if m]
    anchors = [ts for ts, text in marks if text == args.marker[0]]
    if not anchors:
        print("no trace_marker line '%s'" % args.marker[0], file=sys.stderr)
        return 2
    t0 = anchors[-1]
    # Each marker's first line from the anchor on.
    at = {}
    for ts, text in marks:
        if ts >= t0 and text in args.marker and text not in at:
            at[text] = ts
    writes = [ts for ts, _ in transactions(lines, args.bus, args.addr)]
    after = [ts for ts in writes if ts >= t0]
    report = {"anchor": args.marker[0], "anchor_ts": t0,
              "writes_before": sum(1 for ts in writes if t0 - args.quiet <= ts < t0),
              "first_write_ts": after[0] if after else None, "latency_ms": None}
    if after:
        w = after[0]
        report["from_marker_ms"] = {k: round((w - v) * 1000, 1) for k, v in at.items() if v <= w}
        acted = max((v, k) for k, v in at.items() if v <= w)
        report["acting_marker"] = acted[1]
        report["latency_ms"] = round((w - acted[0]) * 1000, 1)
        if args.edges:
            with open(args.edges) as f:
                edges = json.load(f)["edges"]
            before = [e for e in edges if e[0] <= w]
            if before:
                report["last_edge"] = {"number": len(before), "of": len(edges), "level": before[-1][1],
                                       "to_write_ms": round((w - before[-1][0]) * 1000, 1)}
    print(json.dumps(report, sort_keys=True))
    return 0 if after else 1


if __name__ == "__main__":
    sys.exit(main())
