"""Tests of decode_ssd1306_trace.py (testkit/ssd1306*.py): the kernel's trace read as transactions, and the
PBM files and command line.

Run: python3 -m unittest discover -s systest -p 'test_*.py'   (or: cd systest && python3 -m unittest)
"""
import os
import tempfile
import unittest

from decode_fixtures import INIT, d, main_status


class Trace(unittest.TestCase):
    LINE = ("          isletd-785     [000] .....   105.800971: smbus_write: i2c-1 a=03c f=0000 "
            "c=40 I2C_BLOCK_DATA l=4 [03-11-22-33]")

    def test_i2c_block_count_byte_is_not_payload(self):
        self.assertEqual(d.transactions([self.LINE], 1, 0x3C), [(105.800971, [0x40, 0x11, 0x22, 0x33])])

    def test_other_bus_or_address_ignored(self):
        self.assertEqual(d.transactions([self.LINE.replace("i2c-1", "i2c-0")], 1, 0x3C), [])
        self.assertEqual(d.transactions([self.LINE.replace("a=03c", "a=03d")], 1, 0x3C), [])

    def test_byte_and_word_data(self):
        lines = [" x-1 [000] ..... 1.5: smbus_write: i2c-1 a=03c f=0000 c=0 BYTE_DATA l=1 [af]",
                 " x-1 [000] ..... 1.6: smbus_write: i2c-1 a=03c f=0000 c=0 WORD_DATA l=2 [81-7f]"]
        self.assertEqual([t for _, t in d.transactions(lines, 1, 0x3C)], [[0x00, 0xAF], [0x00, 0x81, 0x7F]])

    def test_failed_write_dropped(self):
        lines = [self.LINE,
                 " x-1 [000] ..... 105.800990: smbus_result: i2c-1 a=03c f=0000 c=40 I2C_BLOCK_DATA wr res=-6"]
        self.assertEqual(d.transactions(lines, 1, 0x3C), [])

    def test_plain_i2c_messages(self):
        lines = [" x-1 [000] ..... 2.0: i2c_write: i2c-1 #0 a=03c f=0000 l=3 [00-8d-14]"]
        self.assertEqual(d.transactions(lines, 1, 0x3C), [(2.0, [0x00, 0x8D, 0x14])])

    # QEMU's trace, in the formats of hw/i2c/trace-events ("%s(addr:0x%02x)" and
    # "send(addr:0x%02x) data:0x%02x"), with -msg timestamp=on's "<pid>@<s>.<us>:" prefix.
    QEMU = ["7@100.000001:i2c_event start(addr:0x3c)",
            "7@100.000002:i2c_send send(addr:0x3c) data:0x00",
            "7@100.000003:i2c_send send(addr:0x3c) data:0xaf",
            "7@100.000004:i2c_event finish(addr:0x3c)",
            "7@100.500000:i2c_event start(addr:0x50)",
            "7@100.500001:i2c_send send(addr:0x50) data:0x00",
            "7@100.500002:i2c_send send(addr:0x50) data:0x07",
            "7@100.500003:i2c_event finish(addr:0x50)",
            "7@101.000000:i2c_event start(addr:0x3c)",
            "7@101.000001:i2c_send send(addr:0x3c) data:0x40",
            "7@101.000002:i2c_send send(addr:0x3c) data:0xff",
            "7@101.000003:i2c_event finish(addr:0x3c)"]

    def test_qemu_trace(self):
        self.assertEqual(d.transactions(self.QEMU, 1, 0x3C),
                         [(100.000001, [0x00, 0xAF]), (101.0, [0x40, 0xFF])])
        self.assertEqual(d.transactions(self.QEMU, 1, 0x50, "qemu"), [(100.5, [0x00, 0x07])])

    def test_qemu_trace_without_timestamps_counts_lines(self):
        plain = [l.split(":", 1)[1] for l in self.QEMU]
        self.assertEqual(d.transactions(plain, 1, 0x3C), [(0.0, [0x00, 0xAF]), (8.0, [0x40, 0xFF])])

    def test_bursts(self):
        self.assertEqual(d.bursts([1.0, 1.01, 1.02, 2.0, 2.01, 3.05]), [1.0, 2.0, 3.05])


class Files(unittest.TestCase):
    def test_pbm_round_trip_and_compare(self):
        rows = [[0, 1, 0], [1, 0, 1]]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "a.pbm")
            d.write_pbm(path, rows)
            with open(path) as f:
                self.assertEqual(f.read(), "P1\n3 2\n010\n101\n")
            self.assertEqual(d.read_pbm(path), rows)
            raw = os.path.join(tmp, "b.pbm")
            with open(raw, "wb") as f:
                f.write(b"P4\n# comment\n3 2\n" + bytes([0b01000000, 0b10100000]))
            self.assertEqual(d.read_pbm(raw), rows)
        self.assertEqual(d.compare(rows, [[0, 1, 1], [1, 0, 1]]), 1)
        self.assertIsNone(d.compare(rows, [[0, 1]]))

    def test_main_expect(self):
        with tempfile.TemporaryDirectory() as tmp:
            trace = os.path.join(tmp, "trace")
            with open(trace, "w") as f:
                hexes = "-".join("%02x" % b for b in INIT[1:])
                f.write(" i-1 [000] ..... 1.0: smbus_write: i2c-1 a=03c f=0000 c=0 I2C_BLOCK_DATA l=%d [%02x-%s]\n"
                        % (len(INIT), len(INIT) - 1, hexes))
                f.write(" i-1 [000] ..... 1.1: smbus_write: i2c-1 a=03c f=0000 c=0 I2C_BLOCK_DATA l=9 "
                        "[08-20-00-21-00-7f-22-00-07]\n")
                f.write(" i-1 [000] ..... 1.2: smbus_write: i2c-1 a=03c f=0000 c=40 I2C_BLOCK_DATA l=2 [01-01]\n")
            expected = os.path.join(tmp, "e.pbm")
            d.write_pbm(expected, [[1 if (x, y) == (0, 0) else 0 for x in range(128)] for y in range(64)])
            self.assertEqual(main_status(trace, "--expect", expected), 0)
            d.write_pbm(expected, [[0] * 128 for _ in range(64)])
            self.assertEqual(main_status(trace, "--expect", expected), 1)


if __name__ == "__main__":
    unittest.main()
