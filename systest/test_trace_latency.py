"""Tests of guest/trace_latency.py (the first-frame and press-to-bus figures) on tracefs lines
written in the kernel's format: markers, SMBus writes and their results.

Run: python3 -m unittest discover -s systest -p 'test_*.py'
"""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest"))
import trace_latency  # noqa: E402


def mark(ts, text):
    return "python3-1223    [000] .....   %.6f: tracing_mark_write: %s\n" % (ts, text)


def write(ts, bus=1, addr=0x3C):
    return ("isletd-794     [000] .....   %.6f: smbus_write: i2c-%d a=%03x f=0000 c=40 "
            "I2C_BLOCK_DATA l=3 [02-00-ff]\n" % (ts, bus, addr))


def result(ts, res, bus=1, addr=0x3C):
    return ("isletd-794     [000] .....   %.6f: smbus_result: i2c-%d a=%03x f=0000 c=40 "
            "I2C_BLOCK_DATA wr res=%d\n" % (ts, bus, addr, res))


class TraceLatencyTests(unittest.TestCase):
    def run_on(self, lines, *args, edges=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "trace")
            with open(path, "w") as f:
                f.writelines(lines)
            argv = [path] + list(args)
            if edges is not None:
                epath = os.path.join(tmp, "edges.json")
                with open(epath, "w") as f:
                    json.dump({"edges": edges}, f)
                argv += ["--edges", epath]
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                rc = trace_latency.main(argv)
            return rc, (json.loads(out.getvalue()) if out.getvalue() else None)

    def test_first_write_after_the_anchor(self):
        rc, r = self.run_on([write(9.0), mark(10.0, "systest: start request"), write(10.1234), write(10.2)],
                            "--marker", "systest: start request")
        self.assertEqual(rc, 0)
        self.assertEqual(r["latency_ms"], 123.4)
        self.assertEqual(r["writes_before"], 0)

    def test_writes_just_before_the_anchor_are_counted(self):
        rc, r = self.run_on([write(9.8), mark(10.0, "m"), write(10.05)], "--marker", "m")
        self.assertEqual((rc, r["writes_before"]), (0, 1))

    def test_other_bus_or_address_and_failed_writes_do_not_count(self):
        lines = [mark(10.0, "m"), write(10.01, bus=0), write(10.02, addr=0x3D),
                 write(10.03), result(10.031, -6), write(10.05), result(10.051, 0)]
        rc, r = self.run_on(lines, "--marker", "m")
        self.assertEqual(r["latency_ms"], 50.0)

    def test_the_acting_marker_is_the_last_one_before_the_write(self):
        lines = [mark(10.0, "b closes"), mark(10.12, "b opens"), write(10.135)]
        edges = [[10.0001, "low"], [10.12, "high"], [10.121, "low"], [10.13, "high"]]
        rc, r = self.run_on(lines, "--marker", "b closes", "--marker", "b opens", edges=edges)
        self.assertEqual(r["acting_marker"], "b opens")
        self.assertEqual(r["latency_ms"], 15.0)
        self.assertEqual(r["from_marker_ms"], {"b closes": 135.0, "b opens": 15.0})
        self.assertEqual(r["last_edge"], {"number": 4, "of": 4, "level": "high", "to_write_ms": 5.0})

    def test_a_write_before_the_release_acts_from_the_press(self):
        lines = [mark(10.0, "b closes"), write(10.04), mark(10.12, "b opens")]
        rc, r = self.run_on(lines, "--marker", "b closes", "--marker", "b opens")
        self.assertEqual((r["acting_marker"], r["latency_ms"]), ("b closes", 40.0))

    def test_the_last_anchor_line_counts(self):
        lines = [mark(5.0, "m"), write(5.5), mark(10.0, "m"), write(10.25)]
        rc, r = self.run_on(lines, "--marker", "m")
        self.assertEqual(r["latency_ms"], 250.0)

    def test_no_write_after_the_anchor_fails(self):
        rc, r = self.run_on([write(9.0), mark(10.0, "m")], "--marker", "m")
        self.assertEqual(rc, 1)
        self.assertIsNone(r["latency_ms"])

    def test_a_missing_anchor_fails(self):
        rc, r = self.run_on([write(9.0)], "--marker", "m")
        self.assertEqual((rc, r), (2, None))


if __name__ == "__main__":
    unittest.main()
