"""What the decoder's tests (test_decode_*.py) share: the datasheets' set-up sequences, panels
fed with transactions, the lit pixels of a picture, and the command line run quietly.
"""
import contextlib
import io
import os
import sys

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


def check_inverse_and_entire_on(test, p):
    """A7h inverts every pixel but the one lit pixel at the top left; A5h lights all; A4h A6h
    show RAM again (the same on both controllers)."""
    test.assertEqual(len(lit(p.glass(128, 64))), 128 * 64 - 1)
    d.feed(p, [0x00, 0xA5])
    test.assertEqual(len(lit(p.glass(128, 64))), 128 * 64)
    d.feed(p, [0x00, 0xA4, 0xA6])
    test.assertEqual(lit(p.glass(128, 64)), {(0, 0)})


def smbus_block_line(ts, c, data):
    """One I2C-block write to i2c-1 0x3c as the kernel traces it (the count byte first)."""
    return (" isletd-9 [000] ..... %.6f: smbus_write: i2c-1 a=03c f=0000 c=%x I2C_BLOCK_DATA l=%d [%s]"
            % (ts, c, len(data) + 1, "-".join("%02x" % b for b in [len(data)] + data)))


def main_status(*argv):
    """The decoder's exit status for this command line, its report (standard output) discarded."""
    with contextlib.redirect_stdout(io.StringIO()):
        return d.main(list(argv))
