"""Tests of decode_ssd1306_trace.py (testkit/ssd1306*.py): the SSD1306 model, with byte sequences written
from the SSD1306 datasheet (Rev 1.1): the control byte, addressing, the picture.

Run: python3 -m unittest discover -s systest -p 'test_*.py'   (or: cd systest && python3 -m unittest)
"""
import unittest

from decode_fixtures import HORIZONTAL_ALL, INIT, check_inverse_and_entire_on, d, lit, panel_with


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
        check_inverse_and_entire_on(self, p)

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

if __name__ == "__main__":
    unittest.main()
