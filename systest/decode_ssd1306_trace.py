#!/usr/bin/env python3
"""Decode the Linux kernel's I2C/SMBus trace as an SSD1306 (or an SH1106) would see it, and write what its panel shows.

Written from the Solomon Systech SSD1306 datasheet (Rev 1.1) and the Sino Wealth SH1106 datasheet
(V2.2) alone, as an oracle independent of Islet's driver and of its emulated panel: it shares no
code or table with them.

Input: tracefs text (/sys/kernel/tracing/trace) with the events smbus/smbus_write (and optionally
smbus/smbus_result, i2c/i2c_write). Each write to the panel's address becomes one I2C write
transaction as the datasheet's section 8.1.5 describes it: a control byte (Co bit 7, D/C# bit 6)
followed by command or GDDRAM data bytes.

  SMBus protocol (trace)       bytes after the address byte, on the wire
  I2C_BLOCK_DATA c=C [n-d..]   C d...          (the trace's first buffer byte is the count n)
  BYTE_DATA c=C [b]            C b
  WORD_DATA c=C [lo-hi]        C lo hi
  BLOCK_DATA c=C [n-d..]       C n d...        (the count byte goes on the wire too)
  BYTE c=C                     C
  i2c_write l=N [b..]          b...            (plain I2C messages)

The model (datasheet section 9, Table 9-1, and section 10):
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

--controller sh1106: the SH1106 (V2.2), a model of its own (the class SH1106 below):
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

Output: a PBM (P1, 1 = lit) of the glass, and a JSON report: transactions, the last command
transaction (e.g. ["ae"] after a clean stop), display state, bursts of traffic (for "a frame every
second"), warnings.
"""

import argparse
import json
import re
import sys

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


class SSD1306:
    """The controller's registers and GDDRAM, reset values from the datasheet."""

    def __init__(self):
        self.ram = [[0] * RAM_COLUMNS for _ in range(RAM_PAGES)]
        self.mode = PAGE
        self.col_start, self.col_end = 0, 127
        self.page_start, self.page_end = 0, 7
        self.col, self.page = 0, 0
        self.start_line = 0
        self.offset = 0
        self.mux = 64
        self.seg_remap = False
        self.com_remap = False
        self.display_on = False
        self.inverse = False
        self.entire_on = False
        self.charge_pump = False
        self.contrast = 0x7F
        self.com_pins = 0x12
        self.scrolling = False
        self.pending = None  # (command, [parameters so far])
        self.warnings = {}

    def warn(self, text):
        self.warnings[text] = self.warnings.get(text, 0) + 1

    # -- commands --------------------------------------------------------------------------
    def command_byte(self, b):
        if self.pending is not None:
            cmd, params = self.pending
            params.append(b)
            if len(params) == PARAMETERS[cmd]:
                self.pending = None
                self.execute(cmd, params)
            return
        if b in PARAMETERS:
            self.pending = (b, [])
            return
        self.execute(b, [])

    def execute(self, c, p):
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
        elif 0x40 <= c <= 0x7F:
            self.start_line = c & 0x3F
        elif c == 0x81:
            self.contrast = p[0]
        elif c == 0x8D:
            self.charge_pump = bool(p[0] & 0x04)
        elif c in (0xA0, 0xA1):
            self.seg_remap = c == 0xA1
        elif c in (0xA4, 0xA5):
            self.entire_on = c == 0xA5
        elif c in (0xA6, 0xA7):
            self.inverse = c == 0xA7
        elif c == 0xA8:
            n = (p[0] & 0x3F) + 1
            if n < 16:
                self.warn("A8h below 16MUX (invalid)")
            self.mux = n
        elif c in (0xAE, 0xAF):
            self.display_on = c == 0xAF
        elif c in (0xC0, 0xC8):
            self.com_remap = c == 0xC8
        elif c == 0xD3:
            self.offset = p[0] & 0x3F
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

    # -- data --------------------------------------------------------------------------------
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

    # -- what the glass shows --------------------------------------------------------------
    def ram_bit(self, row, column):
        return (self.ram[row // 8][column] >> (row % 8)) & 1

    def com_lit(self, com, seg):
        """Is the pixel at COM output `com`, segment output `seg` lit?"""
        if not (self.display_on and self.charge_pump):
            return 0
        n = self.mux
        c = (n - 1 - com) % RAM_ROWS if self.com_remap else com
        r = (c + self.offset) % RAM_ROWS
        if r >= n:
            return 0
        if self.entire_on:
            return 1
        column = (RAM_COLUMNS - 1 - seg) if self.seg_remap else seg
        bit = self.ram_bit((r + self.start_line) % RAM_ROWS, column)
        return bit ^ (1 if self.inverse else 0)

    def glass(self, width, height, col_offset=0):
        rows = []
        for y in range(height):
            com = height - 1 - y
            rows.append([self.com_lit(com, RAM_COLUMNS - 1 - col_offset - x) for x in range(width)])
        return rows


SH1106_COLUMNS = 132
# Parameter bytes per command (SH1106 V2.2 command table, p. 30-31); every other command byte of
# the table takes none.
SH1106_PARAMETERS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
# SSD1306 commands that the SH1106's table lacks, named in the report.
SSD1306_ONLY = {0x20: "20h (SSD1306 memory addressing mode)", 0x21: "21h (SSD1306 column window)",
                0x22: "22h (SSD1306 page window)", 0x8D: "8Dh (SSD1306 charge pump)"}


class SH1106:
    """The SH1106's registers and 132 x 64 display RAM, power-on values from its datasheet (V2.2,
    p. 18 "Reset Circuit" and the command table's POR values)."""

    mode = PAGE  # the only way it addresses its RAM

    def __init__(self):
        self.ram = [[0] * SH1106_COLUMNS for _ in range(RAM_PAGES)]
        self.col, self.page = 0, 0
        self.rmw_col = None          # the column E0h saved
        self.start_line = 0
        self.offset = 0
        self.mux = 64
        self.seg_remap = False
        self.com_remap = False
        self.display_on = False
        self.inverse = False
        self.entire_on = False
        self.dc_dc = True            # 8Bh (POR)
        self.contrast = 0x80
        self.com_pins = 0x12
        self.pump_voltage = 0x32
        self.pending = None
        self.warnings = {}
        self.unexpected = {}
        self.columns_written = None  # [lowest, highest] RAM column a data byte went to
        self.written = set()         # (page, column) of every RAM byte written

    def warn(self, text):
        self.warnings[text] = self.warnings.get(text, 0) + 1

    def command_byte(self, b):
        if self.pending is not None:
            cmd, params = self.pending
            params.append(b)
            if len(params) == SH1106_PARAMETERS[cmd]:
                self.pending = None
                self.execute(cmd, params)
            return
        if b in SH1106_PARAMETERS:
            self.pending = (b, [])
            return
        self.execute(b, [])

    def unknown(self, c):
        key = "%02x" % c
        self.unexpected[key] = self.unexpected.get(key, 0) + 1
        self.warn("%s is not an SH1106 command" % SSD1306_ONLY.get(c, "%02Xh" % c))

    def execute(self, c, p):
        if c <= 0x0F:
            self.col = (self.col & 0xF0) | c                      # item 1: A3-A0
        elif c <= 0x1F:
            self.col = ((c & 0x0F) << 4) | (self.col & 0x0F)      # item 2: A7-A4
        elif 0x30 <= c <= 0x33:
            self.pump_voltage = c                                 # item 3
        elif 0x40 <= c <= 0x7F:
            self.start_line = c & 0x3F                            # item 4
        elif c == 0x81:
            self.contrast = p[0]                                  # item 5
        elif c in (0xA0, 0xA1):
            self.seg_remap = c == 0xA1                            # item 6
        elif c in (0xA4, 0xA5):
            self.entire_on = c == 0xA5                            # item 7
        elif c in (0xA6, 0xA7):
            self.inverse = c == 0xA7                              # item 8
        elif c == 0xA8:
            self.mux = (p[0] & 0x3F) + 1                          # item 9: 1-64
        elif c == 0xAD:                                           # item 10: 1000101D
            if p[0] & 0xFE != 0x8A:
                self.warn("ADh followed by %02Xh, not 8Ah/8Bh" % p[0])
            self.dc_dc = bool(p[0] & 0x01)
        elif c in (0xAE, 0xAF):
            self.display_on = c == 0xAF                           # item 11
        elif 0xB0 <= c <= 0xB7:
            self.page = c & 0x07                                  # item 12
        elif 0xC0 <= c <= 0xCF:
            self.com_remap = bool(c & 0x08)                       # item 13: 1100D***
        elif c == 0xD3:
            self.offset = p[0] & 0x3F                             # item 14
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

    def ram_bit(self, row, column):
        return (self.ram[row // 8][column] >> (row % 8)) & 1

    def com_lit(self, com, seg):
        """Is the pixel at COM output `com`, segment output `seg` (0-131) lit?"""
        if not (self.display_on and self.dc_dc):
            return 0
        n = self.mux
        c = (n - 1 - com) % RAM_ROWS if self.com_remap else com
        r = (c + self.offset) % RAM_ROWS
        if r >= n:
            return 0
        if self.entire_on:
            return 1
        column = (SH1106_COLUMNS - 1 - seg) if self.seg_remap else seg
        return self.ram_bit((r + self.start_line) % RAM_ROWS, column) ^ (1 if self.inverse else 0)

    def glass(self, width, height, col_offset=2):
        return [[self.com_lit(height - 1 - y, SH1106_COLUMNS - 1 - col_offset - x) for x in range(width)]
                for y in range(height)]


# -- the trace ---------------------------------------------------------------------------------
TIME_RE = r"\s(?P<ts>\d+\.\d+):\s"
SMBUS_WRITE_RE = re.compile(
    TIME_RE + r"smbus_write:\s+i2c-(?P<bus>\d+) a=(?P<addr>[0-9a-f]+) f=(?P<flags>[0-9a-f]+) "
    r"c=(?P<cmd>[0-9a-f]+) (?P<proto>[A-Z0-9_]+) l=(?P<len>\d+) \[(?P<buf>[0-9a-f-]*)\]")
SMBUS_RESULT_RE = re.compile(
    TIME_RE + r"smbus_result:\s+i2c-(?P<bus>\d+) a=(?P<addr>[0-9a-f]+) f=[0-9a-f]+ c=[0-9a-f]+ "
    r"[A-Z0-9_]+ (?P<dir>rd|wr) res=(?P<res>-?\d+)")
MARKER_RE = re.compile(TIME_RE + r"tracing_mark_write: (?P<text>.*)$")
I2C_WRITE_RE = re.compile(
    TIME_RE + r"i2c_write:\s+i2c-(?P<bus>\d+) #\d+ a=(?P<addr>[0-9a-f]+) f=(?P<flags>[0-9a-f]+) "
    r"l=(?P<len>\d+) \[(?P<buf>[0-9a-f-]*)\]")


def hexbytes(s):
    return [int(x, 16) for x in s.split("-")] if s else []


def transactions(lines, bus, addr, source="auto"):
    """The write transactions to (bus, addr): a list of (timestamp, [bytes after the address])."""
    smbus, i2c = [], []
    for line in lines:
        m = SMBUS_WRITE_RE.search(line)
        if m:
            if int(m["bus"]) != bus or int(m["addr"], 16) != addr:
                continue
            c, proto, buf = int(m["cmd"], 16), m["proto"], hexbytes(m["buf"])
            if proto == "I2C_BLOCK_DATA":
                data = [c] + buf[1:1 + buf[0]] if buf else [c]
            elif proto == "BLOCK_DATA":
                data = [c] + buf
            elif proto == "BYTE_DATA":
                data = [c] + buf[:1]
            elif proto == "WORD_DATA":
                data = [c] + buf[:2]
            elif proto == "BYTE":
                data = [c]
            else:
                continue  # QUICK, calls: no payload for the panel
            smbus.append((float(m["ts"]), data))
            continue
        m = SMBUS_RESULT_RE.search(line)
        if m:
            if (int(m["bus"]) == bus and int(m["addr"], 16) == addr and m["dir"] == "wr"
                    and int(m["res"]) < 0 and smbus):
                smbus.pop()  # the last write failed: it never reached the panel
            continue
        m = I2C_WRITE_RE.search(line)
        if m:
            if int(m["bus"]) == bus and int(m["addr"], 16) == addr and not int(m["flags"], 16) & 1:
                i2c.append((float(m["ts"]), hexbytes(m["buf"])))
    if source == "smbus" or (source == "auto" and smbus):
        return smbus
    return i2c


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


def bursts(times, gap=0.3):
    """Groups of transactions separated by more than `gap` seconds: start times."""
    out = []
    last = None
    for t in times:
        if last is None or t - last > gap:
            out.append(t)
        last = t
    return out


CONTROLLERS = {"ssd1306": SSD1306, "sh1106": SH1106}
DEFAULT_COLUMN_OFFSET = {"ssd1306": 0, "sh1106": 2}


def decode(lines, bus=1, addr=0x3C, width=128, height=64, col_offset=None, source="auto", since=None,
           controller="ssd1306", start=None):
    """`start`: only the transactions from this trace timestamp on reach the controller, which
    starts from its power-on state (one run of the daemon, not what an earlier one left)."""
    panel = CONTROLLERS[controller]()
    if col_offset is None:
        col_offset = DEFAULT_COLUMN_OFFSET[controller]
    last_commands = None
    last_command_ts = None
    data_times = []
    count = 0
    trans = [t for t in transactions(lines, bus, addr, source) if start is None or t[0] >= start]
    for ts, payload in trans:
        cmds = feed(panel, payload)
        count += 1
        if cmds:
            last_commands, last_command_ts = cmds, ts
        if payload and payload[0] & 0x40 and (since is None or ts >= since):
            data_times.append(ts)
    report = {
        "controller": controller,
        "column_offset": col_offset,
        "start": start,
        "transactions": count,
        "first_ts": trans[0][0] if trans else None,
        "last_ts": trans[-1][0] if trans else None,
        "last_command_transaction": ["%02x" % b for b in (last_commands or [])],
        "last_command_ts": last_command_ts,
        "last_transaction_is_command": bool(trans) and not (trans[-1][1] and trans[-1][1][0] & 0x40),
        "display_on": panel.display_on,
        "charge_pump": getattr(panel, "charge_pump", None),
        "inverse": panel.inverse,
        "entire_on": panel.entire_on,
        "addressing_mode": ["horizontal", "vertical", "page"][panel.mode],
        "mux": panel.mux, "offset": panel.offset, "start_line": panel.start_line,
        "segment_remap": panel.seg_remap, "com_remap": panel.com_remap,
        "com_pins": "%02x" % panel.com_pins, "contrast": panel.contrast,
        "pending_command": ("%02x" % panel.pending[0]) if panel.pending else None,
        "data_bursts": bursts(data_times),
        "warnings": panel.warnings,
    }
    if controller == "sh1106":
        report["dc_dc"] = panel.dc_dc
        report["unexpected_commands"] = panel.unexpected
        report["columns_written"] = panel.columns_written
        # RAM bytes behind the glass that this decode never saw written: what they show is the
        # power-on content (undefined on a real chip, zero here). 0 = the glass is all this trace's.
        report["unwritten_visible_bytes"] = sum(
            1 for page in range(min(RAM_PAGES, (height + 7) // 8))
            for col in range(col_offset, min(SH1106_COLUMNS, col_offset + width))
            if (page, col) not in panel.written)
        report["column"], report["page"] = panel.col, panel.page
    return panel.glass(width, height, col_offset), report


# -- PBM ---------------------------------------------------------------------------------------
def write_pbm(path, rows):
    h, w = len(rows), len(rows[0]) if rows else 0
    text = "P1\n%d %d\n" % (w, h) + "".join("".join(str(v) for v in r) + "\n" for r in rows)
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


def read_pbm(path):
    """Plain (P1) or raw (P4) PBM as rows of 0/1."""
    with open(path, "rb") as f:
        data = f.read()
    tokens = []
    pos = 0
    # header: magic, width, height, with comments
    while len(tokens) < 3:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            while pos < len(data) and data[pos:pos + 1] != b"\n":
                pos += 1
            continue
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace():
            pos += 1
        tokens.append(data[start:pos].decode())
    magic, w, h = tokens[0], int(tokens[1]), int(tokens[2])
    if magic == "P1":
        bits = [int(ch) for ch in data[pos:].decode() if ch in "01"]
        if len(bits) < w * h:
            raise ValueError("%s: %d pixels, %d expected" % (path, len(bits), w * h))
        return [bits[y * w:(y + 1) * w] for y in range(h)]
    if magic == "P4":
        pos += 1
        stride = (w + 7) // 8
        rows = []
        for y in range(h):
            line = data[pos + y * stride:pos + (y + 1) * stride]
            rows.append([(line[x // 8] >> (7 - x % 8)) & 1 for x in range(w)])
        return rows
    raise ValueError("%s: not a PBM (magic %r)" % (path, magic))


def ascii_art(rows):
    return "\n".join("".join("#" if v else "." for v in r) for r in rows)


def compare(a, b):
    """Number of differing pixels, or None when the sizes differ."""
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)):
        return None
    return sum(1 for x, y in zip(a, b) for p, q in zip(x, y) if p != q)


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
    ap.add_argument("--source", choices=["auto", "smbus", "i2c"], default="auto")
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
        stamps = [float(m["ts"]) for m in (MARKER_RE.search(l) for l in lines)
                  if m and m["text"].strip() == args.since_marker]
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
