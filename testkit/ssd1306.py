"""An SSD1306 as its datasheet describes it: the I2C control byte, the command table and GDDRAM.

Written from the Solomon Systech SSD1306 datasheet (Rev 1.1) alone, as an oracle independent of
Islet's driver and of its emulated panel: it shares no code or table with them. The SH1106 (a
model of its own) is in testkit/ssd1306_sh1106.py; reading the kernel's trace into transactions
is testkit/ssd1306_trace.py, the whole decode testkit/ssd1306_decode.py.

An I2C write transaction (section 8.1.5) is a control byte (Co bit 7, D/C# bit 6) followed by
command or GDDRAM data bytes:
  - control byte: Co=0 -> every following byte is of the D/C# kind; Co=1 -> one byte of that
    kind, then another control byte (8.1.5.2, step 5).
  - commands with parameters: 81, 8D, 20, A8, D3, D5, D9, DA, DB take one; 21, 22, A3 take two;
    26/27 take six; 29/2A take five. A command's parameters may continue in the next command
    transaction (the decoder does not reset between transactions).
  - GDDRAM: 8 pages x 128 columns; a data byte is 8 vertical pixels of one column, bit 0 on top
    (the row 8*page + bit). Addressing modes (20h): 00 horizontal, 01 vertical, 10 page (reset).
    Horizontal: column++ and past the column end back to the column start with page++ (past the
    page end back to the page start). Vertical: page++ and past the page end back to the page
    start with column++. Page mode: column++ and past the column end back to the column start,
    page unchanged. 21h/22h set start, end and the pointer; B0-B7 (page) and 00-0F/10-1F (column
    start nibbles) set the pointer in page addressing mode ("only for page addressing mode": in
    the other modes they are counted as ignored, see warnings).
  - picture: COM output c, scan direction C0 (COM0 -> COM[N-1]) or C8 (COM[N-1] -> COM0), with
    N the multiplex ratio (A8h + 1), shows the display row r = (c' + offset) mod 64 where
    c' = c (C0) or N-1-c (C8); rows r >= N are not driven (dark); the row shows RAM row
    (r + start line) mod 64 (Tables 10-1, 10-2: the offset moves COM16 towards COM0 by 16 when
    it is 16; the start line maps RAM row s to COM0). Segment SEGj shows RAM column j (A0) or
    127-j (A1). A pixel is lit when the display is on (AFh) and the charge pump is on (8Dh 14h;
    reset: off) and either A5h (entire display on) or the RAM bit XOR inverse (A7h).
  - the module: a panel of W x H glass pixels wired the way SSD1306 modules are built so that
    A1h/C8h show RAM column 0 and RAM row 0 at the glass's top left: glass column x is SEG
    (127 - col_offset - x), glass row y is COM (H - 1 - y). DAh (COM pins configuration) is
    assumed to match the module and only reported.
"""

RAM_COLUMNS = 128
RAM_PAGES = 8
RAM_ROWS = 64

# Parameter bytes per command (Table 9-1); every command not listed takes none.
PARAMETERS = {
    0x81: 1, 0x8D: 1, 0x20: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
    0x21: 2, 0x22: 2, 0xA3: 2,
    0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5,
}

HORIZONTAL, VERTICAL, PAGE = 0, 1, 2


class Controller:
    """What the SSD1306 and the SH1106 have in common: the register set behind the picture,
    parameters gathered byte by byte, the picture's COM/SEG mapping. A subclass names its RAM
    width (COLUMNS), its parameter table (PARAMETERS), its module's usual column offset and
    when its glass is powered."""

    COLUMNS = RAM_COLUMNS
    PARAMETERS = PARAMETERS
    COLUMN_OFFSET = 0

    def __init__(self):
        self.ram = [[0] * self.COLUMNS for _ in range(RAM_PAGES)]
        self.col, self.page = 0, 0
        self.start_line = 0
        self.offset = 0
        self.mux = 64
        self.seg_remap = False
        self.com_remap = False
        self.display_on = False
        self.inverse = False
        self.entire_on = False
        self.com_pins = 0x12
        self.pending = None  # (command, [parameters so far])
        self.warnings = {}

    def warn(self, text):
        self.warnings[text] = self.warnings.get(text, 0) + 1

    def command_byte(self, b):
        if self.pending is not None:
            cmd, params = self.pending
            params.append(b)
            if len(params) == self.PARAMETERS[cmd]:
                self.pending = None
                self.execute(cmd, params)
            return
        if b in self.PARAMETERS:
            self.pending = (b, [])
            return
        self.execute(b, [])

    def execute_shared(self, c, p):
        """The commands both datasheets give the same meaning; False for any other byte."""
        if 0x40 <= c <= 0x7F:
            self.start_line = c & 0x3F
        elif c == 0x81:
            self.contrast = p[0]
        elif c in (0xA0, 0xA1):
            self.seg_remap = c == 0xA1
        elif c in (0xA4, 0xA5):
            self.entire_on = c == 0xA5
        elif c in (0xA6, 0xA7):
            self.inverse = c == 0xA7
        elif c in (0xAE, 0xAF):
            self.display_on = c == 0xAF
        elif c == 0xD3:
            self.offset = p[0] & 0x3F
        else:
            return False
        return True

    # -- what the glass shows --------------------------------------------------------------
    def powered(self):
        raise NotImplementedError

    def ram_bit(self, row, column):
        return (self.ram[row // 8][column] >> (row % 8)) & 1

    def com_lit(self, com, seg):
        """Is the pixel at COM output `com`, segment output `seg` lit?"""
        if not (self.display_on and self.powered()):
            return 0
        n = self.mux
        c = (n - 1 - com) % RAM_ROWS if self.com_remap else com
        r = (c + self.offset) % RAM_ROWS
        if r >= n:
            return 0
        if self.entire_on:
            return 1
        column = (self.COLUMNS - 1 - seg) if self.seg_remap else seg
        return self.ram_bit((r + self.start_line) % RAM_ROWS, column) ^ (1 if self.inverse else 0)

    def glass(self, width, height, col_offset=None):
        if col_offset is None:
            col_offset = self.COLUMN_OFFSET
        return [[self.com_lit(height - 1 - y, self.COLUMNS - 1 - col_offset - x) for x in range(width)]
                for y in range(height)]


class SSD1306(Controller):
    """The controller's registers and GDDRAM, reset values from the datasheet."""

    def __init__(self):
        super().__init__()
        self.mode = PAGE
        self.col_start, self.col_end = 0, 127
        self.page_start, self.page_end = 0, 7
        self.charge_pump = False
        self.contrast = 0x7F
        self.scrolling = False

    def execute(self, c, p):
        if self.execute_shared(c, p):
            return
        if 0x00 <= c <= 0x0F or 0x10 <= c <= 0x1F:
            if self.mode != PAGE:
                self.warn("00h-1Fh outside page addressing mode ignored (datasheet: page mode only)")
                return
            if c <= 0x0F:
                self.col = (self.col & 0xF0) | (c & 0x0F)
            else:
                self.col = ((c & 0x0F) << 4) | (self.col & 0x0F)
            self.col &= 0x7F
        elif c == 0x20:
            mode = p[0] & 0x03
            if mode == 0x03:
                self.warn("20h with A[1:0]=11b (invalid)")
            else:
                self.mode = mode
        elif c == 0x21:
            self.col_start, self.col_end = p[0] & 0x7F, p[1] & 0x7F
            self.col = self.col_start
        elif c == 0x22:
            self.page_start, self.page_end = p[0] & 0x07, p[1] & 0x07
            self.page = self.page_start
        elif 0xB0 <= c <= 0xB7:
            if self.mode != PAGE:
                self.warn("B0h-B7h outside page addressing mode ignored (datasheet: page mode only)")
                return
            self.page = c & 0x07
        elif c == 0x8D:
            self.charge_pump = bool(p[0] & 0x04)
        elif c == 0xA8:
            n = (p[0] & 0x3F) + 1
            if n < 16:
                self.warn("A8h below 16MUX (invalid)")
            self.mux = n
        elif c in (0xC0, 0xC8):
            self.com_remap = c == 0xC8
        elif c == 0xDA:
            self.com_pins = p[0]
        elif c in (0xD5, 0xD9, 0xDB, 0xE3, 0xA3):
            pass  # timing, VCOMH, NOP, vertical scroll area: no effect on the picture's content
        elif c in (0x26, 0x27, 0x29, 0x2A):
            pass  # scroll set-up; only 2Fh starts scrolling
        elif c == 0x2E:
            self.scrolling = False
        elif c == 0x2F:
            self.scrolling = True
            self.warn("2Fh: scrolling activated (not modelled)")
        else:
            self.warn("command %02Xh is not in the command table" % c)

    def data_byte(self, b):
        self.ram[self.page][self.col] = b
        if self.mode == HORIZONTAL:
            if self.col >= self.col_end:
                self.col = self.col_start
                self.page = self.page_start if self.page >= self.page_end else self.page + 1
            else:
                self.col += 1
        elif self.mode == VERTICAL:
            if self.page >= self.page_end:
                self.page = self.page_start
                self.col = self.col_start if self.col >= self.col_end else self.col + 1
            else:
                self.page += 1
        else:
            self.col = self.col_start if self.col >= self.col_end else self.col + 1
        self.col &= 0x7F

    def powered(self):
        return self.charge_pump


def feed(panel, payload):
    """One I2C write transaction (bytes after the address byte) into the controller.
    Returns the command bytes of the transaction."""
    commands = []
    i = 0
    while i < len(payload):
        control = payload[i]
        co, dc = control & 0x80, control & 0x40
        if control & 0x3F:
            panel.warn("control byte %02Xh has non-zero low bits" % control)
        i += 1
        chunk = payload[i:i + 1] if co else payload[i:]
        i += len(chunk)
        for b in chunk:
            if dc:
                panel.data_byte(b)
            else:
                panel.command_byte(b)
                commands.append(b)
    return commands
