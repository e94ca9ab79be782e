"""The SH1106 (Sino Wealth datasheet V2.2) as a model of its own, beside testkit/ssd1306.py.

  - the I2C control byte as on the SSD1306 (Figure 7: Co, D/C#).
  - display data RAM: 132 columns x 8 pages (p. 14 "132 X 64 bits", Figure 8: column addresses
    00h-83h); a data byte is 8 vertical pixels, D0 on top of its page.
  - page addressing only: B0h-B7h set the page (item 12), 00h-0Fh/10h-1Fh the column address's
    lower and higher nibbles (items 1, 2; an 8-bit register, 0-131 valid). Each data write
    increments the column "until address 131 is accessed. The page address is not changed"; the
    datasheet defines no wrap: a write past column 131 has no RAM and is counted as a warning.
    E0h/EEh read-modify-write: EEh returns the column to where E0h found it (items 19, 20).
  - commands with one parameter: 81 (contrast), A8 (multiplex 1-64), AD (DC-DC, followed by
    8Ah off / 8Bh on), D3 (offset), D5, D9, DA, DB (items 5, 9, 10, 14-18); none else. 30h-33h
    pump voltage, E3h NOP. Anything not in the command table (p. 30-31: "Do not use any other
    command") is reported under "unexpected_commands" and takes no parameter, so its would-be
    parameter is decoded as the command it is on the SH1106: in particular the SSD1306's
    20h (addressing mode), 21h/22h (column/page windows) and 8Dh (charge pump).
  - picture: as on the SSD1306 (C0h-C7h scan COM0 -> COM[N-1], C8h-CFh the reverse, item 13;
    D3h offset, item 14; 40h-7Fh start line, item 4; A8h multiplex), but segment SEGj shows RAM
    column j (A0h) or 131-j (A1h): Table 7, "ADC 1: SEG0 = column 83h". A pixel is lit when the
    display is on (AFh) and the DC-DC converter is on (ADh 8Bh, the power-on default: Table 8
    "built-in DC-DC is used, normal display"; the module runs on the built-in DC-DC as in the
    application circuit for I2C, p. 48) and either A5h or the RAM bit XOR A7h.
  - the module: the common 1.3" 128x64 module puts the 132-column RAM behind a glass of 128
    columns, the RAM's columns 2-129 (the two columns at each end of Figure 8's 132 are not
    wired), upright with A1h/C8h: glass column x is SEG (131 - column_offset - x), so with A1h
    it shows RAM column column_offset + x; glass row y is COM (H - 1 - y). --column-offset
    (default 2 for the SH1106) is that wiring; a module wired at SEG0 is 0.
"""

from testkit.ssd1306 import PAGE, Controller

SH1106_COLUMNS = 132
# Parameter bytes per command (SH1106 V2.2 command table, p. 30-31); every other command byte of
# the table takes none.
SH1106_PARAMETERS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
# SSD1306 commands that the SH1106's table lacks, named in the report.
SSD1306_ONLY = {0x20: "20h (SSD1306 memory addressing mode)", 0x21: "21h (SSD1306 column window)",
                0x22: "22h (SSD1306 page window)", 0x8D: "8Dh (SSD1306 charge pump)"}


class SH1106(Controller):
    """The SH1106's registers and 132 x 64 display RAM, power-on values from its datasheet (V2.2,
    p. 18 "Reset Circuit" and the command table's POR values)."""

    mode = PAGE  # the only way it addresses its RAM
    COLUMNS = SH1106_COLUMNS
    PARAMETERS = SH1106_PARAMETERS
    COLUMN_OFFSET = 2

    def __init__(self):
        super().__init__()
        self.rmw_col = None          # the column E0h saved
        self.dc_dc = True            # 8Bh (POR)
        self.contrast = 0x80
        self.pump_voltage = 0x32
        self.unexpected = {}
        self.columns_written = None  # [lowest, highest] RAM column a data byte went to
        self.written = set()         # (page, column) of every RAM byte written

    def unknown(self, c):
        key = "%02x" % c
        self.unexpected[key] = self.unexpected.get(key, 0) + 1
        self.warn("%s is not an SH1106 command" % SSD1306_ONLY.get(c, "%02Xh" % c))

    def execute(self, c, p):
        # Shared with the SSD1306: start line (item 4), contrast (5), segment remap (6), entire
        # display on (7), inverse (8), display on/off (11), offset (14).
        if self.execute_shared(c, p):
            return
        if c <= 0x0F:
            self.col = (self.col & 0xF0) | c                      # item 1: A3-A0
        elif c <= 0x1F:
            self.col = ((c & 0x0F) << 4) | (self.col & 0x0F)      # item 2: A7-A4
        elif 0x30 <= c <= 0x33:
            self.pump_voltage = c                                 # item 3
        elif c == 0xA8:
            self.mux = (p[0] & 0x3F) + 1                          # item 9: 1-64
        elif c == 0xAD:                                           # item 10: 1000101D
            if p[0] & 0xFE != 0x8A:
                self.warn("ADh followed by %02Xh, not 8Ah/8Bh" % p[0])
            self.dc_dc = bool(p[0] & 0x01)
        elif 0xB0 <= c <= 0xB7:
            self.page = c & 0x07                                  # item 12
        elif 0xC0 <= c <= 0xCF:
            self.com_remap = bool(c & 0x08)                       # item 13: 1100D***
        elif c == 0xDA:
            if p[0] not in (0x02, 0x12):
                self.warn("DAh followed by %02Xh, not 02h/12h" % p[0])
            self.com_pins = p[0]                                  # item 17
        elif c in (0xD5, 0xD9, 0xDB, 0xE3):
            pass                                                  # items 15, 16, 18, 21
        elif c == 0xE0:
            self.rmw_col = self.col                               # item 19
        elif c == 0xEE:
            if self.rmw_col is None:
                self.warn("EEh without E0h")
            else:
                self.col, self.rmw_col = self.rmw_col, None       # item 20
        else:
            self.unknown(c)

    def data_byte(self, b):
        if self.col >= SH1106_COLUMNS:
            self.warn("data written past column 131 (no RAM there; the datasheet defines no wrap)")
        else:
            self.ram[self.page][self.col] = b
            self.written.add((self.page, self.col))
            w = self.columns_written
            self.columns_written = [min(w[0], self.col), max(w[1], self.col)] if w else [self.col, self.col]
        self.col = (self.col + 1) & 0xFF

    def powered(self):
        return self.dc_dc
