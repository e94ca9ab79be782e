"""Tests of decode_ssd1306_trace.py with byte sequences written from the SSD1306 datasheet (Rev 1.1)
and, for --controller sh1106, from the SH1106 datasheet (V2.2).

Run: python3 -m unittest discover -s systest -p 'test_*.py'   (or: cd systest && python3 -m unittest)
"""
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_ssd1306_trace as d  # noqa: E402

# Power-on set-up from the datasheet's application example (section 8.9 / the software
# flow of the charge-pump app note): display off, mux 64, offset 0, start line 0, segment
# remap, COM scan remapped, COM pins alternative, contrast, charge pump on, display on.
INIT = [0x00, 0xAE, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0xA1, 0xC8, 0xDA, 0x12, 0x81, 0x7F,
        0xA4, 0xA6, 0xD5, 0x80, 0x8D, 0x14, 0xAF]
HORIZONTAL_ALL = [0x00, 0x20, 0x00, 0x21, 0x00, 0x7F, 0x22, 0x00, 0x07]


def panel_with(*transactions):
    p = d.SSD1306()
    for t in transactions:
        d.feed(p, list(t))
    return p


def lit(rows):
    return {(x, y) for y, r in enumerate(rows) for x, v in enumerate(r) if v}


class ControlByte(unittest.TestCase):
    def test_command_stream(self):
        # Co=0, D/C#=0: every following byte is a command (8.1.5.2 step 5).
        p = d.SSD1306()
        self.assertEqual(d.feed(p, [0x00, 0xAF, 0xA7]), [0xAF, 0xA7])
        self.assertTrue(p.display_on)
        self.assertTrue(p.inverse)

    def test_data_stream(self):
        # Co=0, D/C#=1 (40h): every following byte goes to GDDRAM, the column pointer +1 each.
        p = panel_with(HORIZONTAL_ALL, [0x40, 0x01, 0x02, 0x03])
        self.assertEqual(p.ram[0][:4], [0x01, 0x02, 0x03, 0x00])
        self.assertEqual(p.col, 3)

    def test_continuation_bit(self):
        # Co=1: one byte, then another control byte: 80h AFh (a command), C0h 55h (a data byte).
        p = panel_with(HORIZONTAL_ALL, [0x80, 0xAF, 0xC0, 0x55, 0x40, 0x66, 0x77])
        self.assertTrue(p.display_on)
        self.assertEqual(p.ram[0][:3], [0x55, 0x66, 0x77])

    def test_parameters_continue_in_the_next_transaction(self):
        p = panel_with([0x00, 0x21, 0x10], [0x00, 0x20])
        self.assertEqual((p.col_start, p.col_end, p.col), (0x10, 0x20, 0x10))


class Addressing(unittest.TestCase):
    def test_reset_is_page_mode(self):
        self.assertEqual(d.SSD1306().mode, d.PAGE)

    def test_page_mode_pointer_example(self):
        # 10.1.3: page B2h, lower column 03h, upper column 10h -> SEG3 of PAGE2.
        p = panel_with([0x00, 0xB2, 0x03, 0x10], [0x40, 0xAA])
        self.assertEqual(p.ram[2][3], 0xAA)

    def test_page_mode_upper_nibble(self):
        p = panel_with([0x00, 0xB7, 0x0F, 0x17], [0x40, 0x11])  # column 7Fh of page 7
        self.assertEqual(p.ram[7][127], 0x11)

    def test_page_mode_stays_on_its_page(self):
        # Past the column end the pointer returns to the column start; the page does not change.
        p = panel_with([0x00, 0xB1, 0x0E, 0x17], [0x40, 1, 2, 3])
        self.assertEqual(p.ram[1][126:], [1, 2])
        self.assertEqual(p.ram[1][0], 3)
        self.assertEqual(p.ram[2][0], 0)

    def test_horizontal_window_example(self):
        # Figure 10-5: columns 2..125, pages 1..6, horizontal mode.
        p = panel_with([0x00, 0x20, 0x00, 0x21, 0x02, 0x7D, 0x22, 0x01, 0x06])
        d.feed(p, [0x40] + [0xFF] * 124)          # one row of the window: columns 2..125 of page 1
        self.assertEqual((p.page, p.col), (2, 2))
        self.assertEqual(p.ram[1][1], 0)
        self.assertEqual(p.ram[1][2], 0xFF)
        self.assertEqual(p.ram[1][125], 0xFF)
        self.assertEqual(p.ram[1][126], 0)
        d.feed(p, [0x40] + [0xEE] * (124 * 5))   # pages 2..6
        self.assertEqual((p.page, p.col), (1, 2))  # back to the start (dotted line)
        d.feed(p, [0x40, 0x01])
        self.assertEqual(p.ram[1][2], 0x01)

    def test_vertical_mode(self):
        p = panel_with([0x00, 0x20, 0x01, 0x21, 0x00, 0x7F, 0x22, 0x00, 0x07], [0x40] + list(range(1, 10)))
        self.assertEqual([p.ram[i][0] for i in range(8)], list(range(1, 9)))
        self.assertEqual(p.ram[0][1], 9)

    def test_page_commands_ignored_outside_page_mode(self):
        p = panel_with(HORIZONTAL_ALL, [0x00, 0xB3], [0x40, 0x42])
        self.assertEqual(p.ram[0][0], 0x42)
        self.assertTrue(any("B0h-B7h" in w for w in p.warnings))


class Picture(unittest.TestCase):
    def test_dark_until_display_on_and_charge_pump(self):
        frame = [0x40] + [0xFF] * 1024
        off = panel_with(HORIZONTAL_ALL, frame)
        self.assertEqual(lit(off.glass(128, 64)), set())
        no_pump = panel_with(HORIZONTAL_ALL, frame, [0x00, 0xAF])
        self.assertEqual(lit(no_pump.glass(128, 64)), set())
        on = panel_with(HORIZONTAL_ALL, frame, [0x00, 0x8D, 0x14, 0xAF])
        self.assertEqual(len(lit(on.glass(128, 64))), 128 * 64)

    def test_upright_with_a1_c8(self):
        # RAM column 0, page 0, bit 0 -> the glass's top-left pixel on a module built for A1h/C8h.
        p = panel_with(INIT, HORIZONTAL_ALL, [0x40, 0x01])
        self.assertEqual(lit(p.glass(128, 64)), {(0, 0)})

    def test_bit_7_is_the_eighth_row(self):
        p = panel_with(INIT, HORIZONTAL_ALL, [0x40, 0x00, 0x80])
        self.assertEqual(lit(p.glass(128, 64)), {(1, 7)})

    def test_rotated_with_a0_c0(self):
        p = panel_with(INIT, [0x00, 0xA0, 0xC0], HORIZONTAL_ALL, [0x40, 0x01])
        self.assertEqual(lit(p.glass(128, 64)), {(127, 63)})

    def test_inverse_and_entire_on(self):
        p = panel_with(INIT, HORIZONTAL_ALL, [0x40, 0x01], [0x00, 0xA7])
        self.assertEqual(len(lit(p.glass(128, 64))), 128 * 64 - 1)
        d.feed(p, [0x00, 0xA5])
        self.assertEqual(len(lit(p.glass(128, 64))), 128 * 64)
        d.feed(p, [0x00, 0xA4, 0xA6])
        self.assertEqual(lit(p.glass(128, 64)), {(0, 0)})

    def test_start_line(self):
        # 40h+8: RAM row 8 is shown on the first row (Table 10-1, column c).
        p = panel_with(INIT, HORIZONTAL_ALL, [0x40, 0x00, 0x01], [0x00, 0x48])  # row 8 = page 1 bit 0
        p2 = panel_with(INIT, [0x00, 0x21, 0x00, 0x7F, 0x22, 0x01, 0x01, 0x20, 0x00], [0x40, 0x01])
        d.feed(p2, [0x00, 0x48])
        self.assertEqual(lit(p2.glass(128, 64)), {(0, 0)})
        self.assertEqual(lit(p.glass(128, 64)), {(1, 56)})  # row 0 moved up by 8: 64 - 8

    def test_display_offset_and_mux(self):
        # D3h 10h with 64 MUX: COM0 shows row 16; with 48 MUX rows 48..63 are not driven.
        p = panel_with(INIT, [0x00, 0x21, 0x00, 0x7F, 0x22, 0x02, 0x02, 0x20, 0x00], [0x40, 0x01])  # RAM row 16
        d.feed(p, [0x00, 0xD3, 0x10])
        self.assertEqual(lit(p.glass(128, 64)), {(0, 0)})
        q = panel_with([0x00, 0xA8, 0x2F, 0xA1, 0xC8, 0x8D, 0x14, 0xAF], HORIZONTAL_ALL, [0x40] + [0xFF] * 1024)
        rows = q.glass(128, 48)
        self.assertEqual(len(lit(rows)), 128 * 48)

    def test_last_command_transaction(self):
        lines = [
            "  isletd-1 [000] ..... 10.000000: smbus_write: i2c-1 a=03c f=0000 c=0 I2C_BLOCK_DATA l=3 [02-8d-14]",
            "  isletd-1 [000] ..... 10.100000: smbus_write: i2c-1 a=03c f=0000 c=40 I2C_BLOCK_DATA l=3 [02-ff-ff]",
            "  isletd-1 [000] ..... 11.000000: smbus_write: i2c-1 a=03c f=0000 c=0 BYTE_DATA l=1 [ae]",
        ]
        _, report = d.decode(lines)
        self.assertEqual(report["last_command_transaction"], ["ae"])
        self.assertTrue(report["last_transaction_is_command"])
        self.assertFalse(report["display_on"])


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
            out = io.StringIO()
            old, sys.stdout = sys.stdout, out
            try:
                self.assertEqual(d.main([trace, "--expect", expected]), 0)
                d.write_pbm(expected, [[0] * 128 for _ in range(64)])
                self.assertEqual(d.main([trace, "--expect", expected]), 1)
            finally:
                sys.stdout = old


# SH1106 V2.2: power-on and initialisation with the built-in DC-DC (p. 32, 1.1) in the I2C
# command stream (Figure 7), each value the command table's POR except the orientation of an
# upright module (A1h, C8h): display off, clock 50h, multiplex 64, offset 0, start line 0,
# ADh 8Bh (DC-DC on), COM pads 12h, contrast 80h, pre-charge 22h, VCOM 35h, normal, display on.
SH_INIT = [0x00, 0xAE, 0xD5, 0x50, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0xAD, 0x8B, 0xA1, 0xC8, 0xDA, 0x12,
           0x81, 0x80, 0xD9, 0x22, 0xDB, 0x35, 0xA4, 0xA6, 0xAF]


def sh1106_with(*transactions):
    p = d.SH1106()
    for t in transactions:
        d.feed(p, list(t))
    return p


def at(page, column):
    """Commands that point at RAM column `column` of `page` (items 12, 1, 2)."""
    return [0x00, 0xB0 | page, column & 0x0F, 0x10 | (column >> 4)]


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
        self.assertEqual(len(lit(p.glass(128, 64))), 128 * 64 - 1)
        d.feed(p, [0x00, 0xA5])
        self.assertEqual(len(lit(p.glass(128, 64))), 128 * 64)
        d.feed(p, [0x00, 0xA4, 0xA6])
        self.assertEqual(lit(p.glass(128, 64)), {(0, 0)})

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
        def line(ts, c, data):
            return (" isletd-9 [000] ..... %.6f: smbus_write: i2c-1 a=03c f=0000 c=%x I2C_BLOCK_DATA l=%d [%s]"
                    % (ts, c, len(data) + 1, "-".join("%02x" % b for b in [len(data)] + data)))
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
            out = io.StringIO()
            old, sys.stdout = sys.stdout, out
            try:
                self.assertEqual(d.main([trace, "--controller", "sh1106", "--start", "2", "--expect", expected]), 0)
                self.assertEqual(d.main([trace, "--controller", "sh1106", "--start", "2", "--column-offset", "0",
                                         "--expect", expected]), 1)
            finally:
                sys.stdout = old


if __name__ == "__main__":
    unittest.main()
