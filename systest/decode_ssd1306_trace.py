#!/usr/bin/env python3
"""Decode the Linux kernel's I2C/SMBus trace as an SSD1306 (or an SH1106) would see it, and write what its panel shows.

The command line of the decoder in testkit/ (ssd1306.py: the SSD1306 model and the I2C control
byte; ssd1306_sh1106.py: the SH1106 model; ssd1306_trace.py: the trace's write transactions;
ssd1306_decode.py: the decode and its report; ssd1306_pbm.py: the pictures), written from the
datasheets alone, as an oracle independent of Islet's driver and of its emulated panel.

Input: tracefs text (/sys/kernel/tracing/trace) with the events smbus/smbus_write (and optionally
smbus/smbus_result, i2c/i2c_write), or QEMU's trace of its I2C bus (-trace 'i2c_*'). --controller sh1106 models the SH1106 instead of the SSD1306.

Output: a PBM (P1, 1 = lit) of the glass, and a JSON report: transactions, the last command
transaction (e.g. ["ae"] after a clean stop), display state, bursts of traffic (for "a frame every
second"), warnings. Exit 1 when --expect differs, 2 when the trace holds no write to the panel
(or no --since-marker line).
"""

import argparse
import json
import os
import sys

# testkit is the folder beside this one's: repo/testkit on the host, /host/testkit in the guest
# (where this file is copied to /host/guest/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# The names other tools and the tests take from here (systest/guest/trace_latency.py: MARKER_RE,
# transactions).
from testkit.ssd1306 import HORIZONTAL, PAGE, PARAMETERS, SSD1306, VERTICAL, feed  # noqa: E402,F401
from testkit.ssd1306_decode import CONTROLLERS, decode  # noqa: E402,F401
from testkit.ssd1306_pbm import ascii_art, compare, read_pbm, write_pbm  # noqa: E402,F401
from testkit.ssd1306_sh1106 import SH1106  # noqa: E402,F401
from testkit.ssd1306_trace import MARKER_RE, bursts, markers, transactions  # noqa: E402,F401


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", help="tracefs text ('-' for standard input)")
    ap.add_argument("--bus", type=int, default=1, help="I2C adapter number (default 1)")
    ap.add_argument("--addr", type=lambda s: int(s, 0), default=0x3C, help="7-bit address (default 0x3c)")
    ap.add_argument("--size", default="128x64", help="glass WxH (default 128x64)")
    ap.add_argument("--controller", choices=sorted(CONTROLLERS), default="ssd1306",
                    help="the controller to model (default ssd1306)")
    ap.add_argument("--column-offset", "--col-offset", dest="col_offset", type=int,
                    help="the module's wiring: the RAM column of the glass's left edge when upright "
                         "(A1h); default 0 for the SSD1306, 2 for the SH1106 (132-column RAM, "
                         "128 columns of glass: RAM columns 2-129)")
    ap.add_argument("--start", type=float,
                    help="decode only the transactions from this trace timestamp on, the controller "
                         "starting from its power-on state")
    ap.add_argument("--source", choices=["auto", "smbus", "i2c", "qemu"], default="auto",
                    help="the kernel's smbus or i2c events, or QEMU's -trace 'i2c_*' (auto: what the trace holds)")
    ap.add_argument("--since", type=float, help="count data bursts from this trace timestamp on")
    ap.add_argument("--since-marker", metavar="TEXT",
                    help="count data bursts from the last trace_marker line that is TEXT on")
    ap.add_argument("-o", "--output", help="write the glass as PBM (P1)")
    ap.add_argument("--expect", help="a PBM to compare with: exit 1 when any pixel differs")
    ap.add_argument("--ascii", action="store_true", help="print the picture as text")
    ap.add_argument("--report", help="write the JSON report here (default: standard output)")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    src = sys.stdin if args.trace == "-" else open(args.trace, errors="replace")
    with src:
        lines = src.readlines()
    since = args.since
    if args.since_marker is not None:
        stamps = [ts for ts, text in markers(lines) if text == args.since_marker]
        if not stamps:
            print("no trace_marker line '%s' in the trace" % args.since_marker, file=sys.stderr)
            return 2
        since = stamps[-1]
    rows, report = decode(lines, args.bus, args.addr, w, h, args.col_offset, args.source, since,
                          args.controller, args.start)
    report["since"] = since
    if args.output:
        write_pbm(args.output, rows)
    status = 0
    if args.expect:
        expected = read_pbm(args.expect)
        diff = compare(rows, expected)
        report["expect"] = args.expect
        report["differing_pixels"] = diff if diff is not None else "size differs"
        if diff != 0:
            status = 1
            if args.ascii:
                print("decoded:\n" + ascii_art(rows) + "\nexpected:\n" + ascii_art(expected), file=sys.stderr)
    if args.ascii and status == 0:
        print(ascii_art(rows), file=sys.stderr)
    text = json.dumps(report, indent=1, sort_keys=True)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    if report["transactions"] == 0:
        print("no write transactions to i2c-%d address %02x in the trace" % (args.bus, args.addr), file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
