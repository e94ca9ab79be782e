"""Tests of bench/plan_bound.c on frames small enough to price by hand (make test-tools).

Each expectation is counted from the SSD1306 datasheet's rules, not from the program: a data
transaction is one control byte plus its data; setting both windows (21h c0 c1, 22h p0 p1) in one
command transaction is 7 bytes; a one-byte window wraps onto itself (§10.1.3).
"""
import json
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 128, 32
FRAME = W * H // 8


def frames(ticks, changes):
    """ticks+1 frames; changes(t) lists (page, column) toggled going from frame t to t+1."""
    out = [bytearray(FRAME)]
    for t in range(ticks):
        f = bytearray(out[-1])
        for page, col in changes(t):
            f[page * W + col] ^= 0xFF
        out.append(f)
    return b"".join(out)


class PlanBound(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.exe = os.path.join(cls.tmp.name, "plan_bound")
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-Wall", "-Wextra", "-Werror", "-o", cls.exe,
                        os.path.join(HERE, "plan_bound.c")], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_on(self, blob):
        path = os.path.join(self.tmp.name, "frames.bin")
        with open(path, "wb") as f:
            f.write(blob)
        return subprocess.run([self.exe, path], capture_output=True, text=True)

    def measure(self, blob):
        r = self.run_on(blob)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_one_byte_changing_every_tick(self):
        # One byte (page 0, column 5) changes on each of 10 ticks. Nothing can send less than
        # its control byte and the byte: 2 a tick. Knowing the future, the window is set once
        # (7 bytes) and then wraps onto the byte: (7 + 10 * 2) / 10.
        r = self.measure(frames(10, lambda t: [(0, 5)]))
        self.assertEqual(r["cell"], "columns 5-5, pages 0-0")
        self.assertAlmostEqual(r["floor_bytes_per_tick"], 2.0)
        self.assertAlmostEqual(r["lower_bound_bytes_per_tick"], 2.0)
        self.assertAlmostEqual(r["future_known_planner_bytes_per_tick"], 2.7)

    def test_a_change_outside_the_cell_costs_two_window_moves(self):
        # As above for 20 ticks, and on ticks 10 and 20 also one byte at page 3, column 100
        # (10 % of the ticks: outside the cell). Lower bound: those ticks send at least 1 + 2.
        # The planner writes that byte through its own window (7 + 1 + 1), sets the cell's
        # window again (7), then writes the cell's byte (1 + 1): 18 on those two ticks, 2 on
        # the others, 7 at the start.
        r = self.measure(frames(20, lambda t: [(0, 5)] + ([(3, 100)] if t in (9, 19) else [])))
        self.assertEqual(r["ticks_changing_outside_cell"], 2)
        self.assertEqual(r["cell"], "columns 5-5, pages 0-0")
        self.assertAlmostEqual(r["floor_bytes_per_tick"], (18 * 2 + 2 * 3) / 20)
        self.assertAlmostEqual(r["lower_bound_bytes_per_tick"], (18 * 2 + 2 * 3) / 20)
        self.assertAlmostEqual(r["future_known_planner_bytes_per_tick"], (7 + 18 * 2 + 2 * 18) / 20)

    def test_the_pointer_is_left_where_the_next_tick_wants_it(self):
        # Columns 5..7 of page 0: ticks 1, 3, 5, 7 change 5 and 7; ticks 2, 4, 6, 8 change 6.
        # Knowing the future, from the window 5..7 set at the start (7, pointer on 5):
        # tick 1 writes 5, 6, 7 (1 + 3; the pointer wraps to 5); tick 2 writes 5, 6 (1 + 2,
        # pointer on 7); tick 3 writes 7, wraps, writes 5 (1 + 2, pointer on 6, next tick's
        # byte); tick 4 writes 6 (1 + 1, on 7); ticks 5..8 repeat 3 and 4.
        r = self.measure(frames(8, lambda t: [(0, 5), (0, 7)] if t % 2 == 0 else [(0, 6)]))
        self.assertEqual(r["cell"], "columns 5-7, pages 0-0")
        self.assertAlmostEqual(r["future_known_planner_bytes_per_tick"], (7 + 4 + 3 + 3 + 2 + 3 + 2 + 3 + 2) / 8)
        # The lower bound may start with the pointer on 7: then every tick sends only its
        # changed bytes and a control byte, the floor.
        self.assertAlmostEqual(r["lower_bound_bytes_per_tick"], r["floor_bytes_per_tick"])
        self.assertAlmostEqual(r["floor_bytes_per_tick"], (4 * 3 + 4 * 2) / 8)

    def test_a_file_that_is_not_whole_frames_is_refused_with_its_size(self):
        r = self.run_on(b"\x00" * (FRAME + 3))
        self.assertEqual(r.returncode, 65)
        self.assertIn(f"{FRAME + 3} bytes is not a whole number of 128x32 frames", r.stderr)


if __name__ == "__main__":
    unittest.main()
