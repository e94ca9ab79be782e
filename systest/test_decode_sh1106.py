"""Tests of decode_ssd1306_trace.py (testkit/ssd1306*.py): --controller sh1106, with byte sequences written
from the SH1106 datasheet (V2.2).

Run: python3 -m unittest discover -s systest -p 'test_*.py'   (or: cd systest && python3 -m unittest)
"""
import os
import tempfile
import unittest

from decode_fixtures import SH_INIT, at, check_inverse_and_entire_on, d, lit, main_status, sh1106_with, \
    smbus_block_line as line


class SH1106Ram(unittest.TestCase):
    def test_reset_state(self):
        p = d.SH1106()
        self.assertEqual((p.page, p.col, len(p.ram), len(p.ram[0])), (0, 0, 8, 132))
        self.assertTrue(p.dc_dc)            # 8Bh is the power-on value
        self.assertFalse(p.display_on)     # AEh
        self.assertFalse(p.seg_remap or p.com_remap)

    def test_column_nibbles_and_page(self):
        # B2h, 03h, 10h: page 2, column 03h.
        p = sh1106_with([0x00, 0xB2, 0x03, 0x10], [0x40, 0xAA])
        self.assertEqual(p.ram[2][3], 0xAA)
        # The last column, 83h = 131: lower nibble 3, higher nibble 8.
        q = sh1106_with([0x00, 0xB7, 0x03, 0x18], [0x40, 0x55])
        self.assertEqual(q.ram[7][131], 0x55)
        self.assertEqual(q.columns_written, [131, 131])

    def test_increment_stays_on_the_page_and_stops_at_131(self):
        # "incremented during each access until address 131 is accessed. The page address is not
        # changed": columns 130, 131 of page 1, then nothing (no wrap to column 0 or to page 2).
        p = sh1106_with(at(1, 130), [0x40, 1, 2, 3])
        self.assertEqual(p.ram[1][130:], [1, 2])
        self.assertEqual(p.ram[1][0], 0)
        self.assertEqual(p.ram[2][0], 0)
        self.assertEqual(p.page, 1)
        self.assertTrue(any("past column 131" in w for w in p.warnings))

    def test_read_modify_write_returns_the_column(self):
        p = sh1106_with(at(0, 10), [0x00, 0xE0], [0x40, 1, 2, 3], [0x00, 0xEE], [0x40, 9])
        self.assertEqual(p.ram[0][10:13], [9, 2, 3])

    def test_ssd1306_commands_are_unexpected(self):
        # 20h 00h: 20h is no SH1106 command; 00h is then "lower column address 0".
        p = sh1106_with(at(0, 0x25), [0x00, 0x20, 0x00])
        self.assertEqual(p.unexpected, {"20": 1})
        self.assertEqual(p.col, 0x20)
        # 21h 00h 7Fh: 7Fh is then a start line (63); 22h 00h 07h: 07h a lower column nibble.
        q = sh1106_with([0x00, 0x21, 0x00, 0x7F, 0x22, 0x00, 0x07])
        self.assertEqual(q.unexpected, {"21": 1, "22": 1})
        self.assertEqual((q.start_line, q.col), (63, 7))
        # 8Dh 14h (the SSD1306's charge pump): 14h is then "higher column address 4".
        r = sh1106_with([0x00, 0x8D, 0x14])
        self.assertEqual(r.unexpected, {"8d": 1})
        self.assertEqual(r.col, 0x40)
        self.assertTrue(any("8Dh (SSD1306 charge pump)" in w for w in r.warnings))

    def test_parameter_commands(self):
        p = sh1106_with([0x00, 0x81, 0xCF, 0xA8, 0x1F, 0xD3, 0x05, 0x32])
        self.assertEqual((p.contrast, p.mux, p.offset, p.pump_voltage), (0xCF, 32, 5, 0x32))
        self.assertEqual(p.unexpected, {})


class SH1106Picture(unittest.TestCase):
    def test_upright_module_shows_columns_2_to_129(self):
        # A1h C8h on the common 1.3" module: RAM column 2, page 0, D0 is the glass's top left;
        # column 129 its top right; columns 0, 1, 130, 131 are not on the glass.
        p = sh1106_with(SH_INIT, at(0, 2), [0x40, 0x01])
        self.assertEqual(lit(p.glass(128, 64)), {(0, 0)})
        q = sh1106_with(SH_INIT, at(0, 129), [0x40, 0x80])
        self.assertEqual(lit(q.glass(128, 64)), {(127, 7)})
        hidden = sh1106_with(SH_INIT, at(7, 0), [0x40, 0xFF, 0xFF], at(7, 130), [0x40, 0xFF, 0xFF])
        self.assertEqual(lit(hidden.glass(128, 64)), set())

    def test_column_offset_is_the_module(self):
        # A module wired at SEG0 (--column-offset 0) shows RAM column 0 at its left edge.
        p = sh1106_with(SH_INIT, at(0, 0), [0x40, 0x01])
        self.assertEqual(lit(p.glass(128, 64, col_offset=0)), {(0, 0)})
        self.assertEqual(lit(p.glass(128, 64)), set())

    def test_a0_c0_turns_it_half_round(self):
        # Table 7: with ADC 0, SEG0 is column 0, so RAM column 2 is at the glass's right edge
        # (SEG129); C0h scans COM0 first, so RAM row 0 is the bottom row.
        p = sh1106_with(SH_INIT, [0x00, 0xA0, 0xC0], at(0, 2), [0x40, 0x01])
        self.assertEqual(lit(p.glass(128, 64)), {(127, 63)})
        # C0h-C7h and C8h-CFh: D3 is the direction, D2-D0 are "*".
        q = sh1106_with(SH_INIT, [0x00, 0xC7], at(0, 2), [0x40, 0x01])
        self.assertEqual(lit(q.glass(128, 64)), {(0, 63)})

    def test_a_known_frame_in_page_mode(self):
        # Eight pages of 128 bytes at columns 2-129, each page in 32-byte data transactions (the
        # SMBus block limit), pointer set once per page: byte x of page n is (x + n) & FFh.
        p = sh1106_with(SH_INIT)
        for n in range(8):
            d.feed(p, at(n, 2))
            data = [(x + n) & 0xFF for x in range(128)]
            for i in range(0, 128, 31):
                d.feed(p, [0x40] + data[i:i + 31])
        rows = p.glass(128, 64)
        want = [[((x + y // 8) >> (y % 8)) & 1 for x in range(128)] for y in range(64)]
        self.assertEqual(rows, want)
        self.assertEqual(p.columns_written, [2, 129])
        self.assertEqual(p.warnings, {})

    def test_dc_dc_off_is_dark(self):
        # Table 8: DC-DC off with the display on needs an external VPP, which the module has not.
        frame = [[0x40] + [0xFF] * 132 for _ in range(8)]
        on = sh1106_with(SH_INIT, *[t for n in range(8) for t in (at(n, 0), frame[n])])
        self.assertEqual(len(lit(on.glass(128, 64))), 128 * 64)
        d.feed(on, [0x00, 0xAE, 0xAD, 0x8A, 0xAF])
        self.assertFalse(on.dc_dc)
        self.assertEqual(lit(on.glass(128, 64)), set())
        d.feed(on, [0x00, 0xAE])
        self.assertEqual(lit(on.glass(128, 64)), set())
        d.feed(on, [0x00, 0xAD, 0x8B, 0xAF])
        self.assertEqual(len(lit(on.glass(128, 64))), 128 * 64)

    def test_inverse_and_entire_on(self):
        p = sh1106_with(SH_INIT, at(0, 2), [0x40, 0x01], [0x00, 0xA7])
        check_inverse_and_entire_on(self, p)

    def test_start_line_offset_and_multiplex(self):
        # 48h: RAM row 8 (page 1, D0) is the top line (item 4).
        p = sh1106_with(SH_INIT, at(1, 2), [0x40, 0x01], [0x00, 0x48])
        self.assertEqual(lit(p.glass(128, 64)), {(0, 0)})
        # D3h 10h: COM16 moves to COM0, so RAM row 16 (page 2) shows on the top line (item 14).
        q = sh1106_with(SH_INIT, at(2, 2), [0x40, 0x01], [0x00, 0xD3, 0x10])
        self.assertEqual(lit(q.glass(128, 64)), {(0, 0)})
        # A8h 2Fh: 48 lines; on a 48-line glass every line is driven.
        r = sh1106_with(SH_INIT, [0x00, 0xA8, 0x2F], *[t for n in range(8) for t in (at(n, 0), [0x40] + [0xFF] * 132)])
        self.assertEqual(len(lit(r.glass(128, 48))), 128 * 48)

    def test_decode_from_the_trace_with_a_start(self):
        lines = [line(1.0, 0x00, [0x20, 0x00, 0x8D, 0x14, 0xAF]),      # an SSD1306 run before
                 line(5.0, 0x00, SH_INIT[1:]),
                 line(5.1, 0x00, [0xB0, 0x02, 0x10]),
                 line(5.2, 0x40, [0x01])]
        rows, report = d.decode(lines, controller="sh1106", start=2.0)
        self.assertEqual(lit(rows), {(0, 0)})
        self.assertEqual(report["unexpected_commands"], {})
        self.assertEqual(report["transactions"], 3)
        self.assertEqual((report["column_offset"], report["dc_dc"], report["columns_written"]), (2, True, [2, 2]))
        self.assertEqual(report["unwritten_visible_bytes"], 128 * 8 - 1)
        pages = [l for n in range(8) for l in (line(6.0 + n / 10, 0x00, [0xB0 | n, 0x02, 0x10]),
                                               line(6.05 + n / 10, 0x40, [0] * 128))]
        _, report = d.decode(lines + pages, controller="sh1106", start=2.0)
        self.assertEqual(report["unwritten_visible_bytes"], 0)
        _, whole = d.decode(lines, controller="sh1106")
        self.assertEqual(whole["unexpected_commands"], {"20": 1, "8d": 1})
        with tempfile.TemporaryDirectory() as tmp:
            trace, expected = os.path.join(tmp, "trace"), os.path.join(tmp, "e.pbm")
            with open(trace, "w") as f:
                f.write("\n".join(lines) + "\n")
            d.write_pbm(expected, [[1 if (x, y) == (0, 0) else 0 for x in range(128)] for y in range(64)])
            self.assertEqual(main_status(trace, "--controller", "sh1106", "--start", "2", "--expect", expected), 0)
            self.assertEqual(main_status(trace, "--controller", "sh1106", "--start", "2", "--column-offset", "0",
                                         "--expect", expected), 1)


if __name__ == "__main__":
    unittest.main()
