#!/usr/bin/env python3
"""luma.oled's init bytes against Islet's, command by command, for every module both support.

For each controller+size that luma.oled and Islet's table both have, this script
- builds luma.oled's device on a fake serial interface that records its command() and data()
  calls (no hardware, no /dev/i2c), and takes the command bytes sent before the first data;
- runs the real daemon on the mock bus (isletd --bus mock --capture FILE, SIGTERM after ~1 s)
  and takes the bytes of the command transactions (control byte 00) before the first data
  transaction (control byte 40), as README.md "I²C capture format" describes the file;
- parses both byte streams into commands with the parameter counts of the controller's
  datasheet command table, so that a reordered command shows as an order difference and not
  as a cascade of byte differences;
- prints, per size, every command where the two differ (other parameter, sent by one side
  only, or sent in another order), and where each side sends display-on (AFh).
The same goes to --out as JSON. Reasons for each difference: docs/DISPLAY.md, "luma.oled's init
bytes and ours".

Parameter counts: SSD1306 Rev 1.1 Table 9-1 (p. 28-32) and App Note p. 3 (8Dh); SSD1309 Rev 1.1
Tables 9-1..9-5 (p. 27-34); SH1106 V2.2 command table (p. 30-31); SH1107 V2.1 command table
(p. 41-42; 20h/21h take no parameter there). A byte a controller's table does not list is kept
as a one-byte command marked "not in the command table", except 8Dh (SH1106) and DAh (SH1107),
which luma sends with the parameter the SSD1306 gives them, so they are parsed that way.

Runs offline: luma.oled from .venv-bench (bash bench/ensure_venv.sh .venv-bench), Python 3 stdlib.
Usage: .venv-bench/bin/python bench/luma_init_compare.py [--isletd PATH] [--out FILE]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

# The decoder's command tables and the capture reader (testkit/, one folder up).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testkit.ssd1306 import PARAMETERS  # noqa: E402
from testkit.ssd1306_capture import read_capture  # noqa: E402
from testkit.ssd1306_sh1106 import SH1106_PARAMETERS  # noqa: E402

# The modules both sides support: (Islet controller, luma class, width, height).
# luma.oled 3.16 has no SSD1306 72x40 (its ssd1306 sizes are 128x64, 128x32, 96x16, 64x48, 64x32).
MODULES = [
    ("ssd1306", "ssd1306", 128, 64),
    ("ssd1306", "ssd1306", 128, 32),
    ("ssd1306", "ssd1306", 96, 16),
    ("ssd1306", "ssd1306", 64, 48),
    ("ssd1306", "ssd1306", 64, 32),
    ("sh1106", "sh1106", 128, 64),
    ("ssd1309", "ssd1309", 128, 64),
    ("sh1107", "sh1107", 64, 128),
    ("sh1107", "sh1107", 128, 128),
]
NOT_IN_LUMA = [("ssd1306", 72, 40, "luma.oled has no 72x40 mode (luma/oled/device/__init__.py ssd1306 settings)")]


# ---- parsing: byte stream -> commands ---------------------------------------------------------

# Command names for the report. The parameter counts are the decoder's tables (testkit/ssd1306.py,
# testkit/ssd1306_sh1106.py: the same datasheets), plus what luma sends that those leave out.
SSD130X_NAMES = {
    0x81: "81 contrast", 0x8D: "8D charge pump", 0x20: "20 addressing mode", 0x21: "21 column window",
    0x22: "22 page window", 0xA8: "A8 multiplex", 0xD3: "D3 display offset", 0xD5: "D5 clock divide/osc",
    0xD9: "D9 precharge", 0xDA: "DA COM pins", 0xDB: "DB VCOMH", 0xAD: "AD IREF select",
    0x26: "26/27 horizontal scroll", 0x27: "26/27 horizontal scroll", 0x29: "29/2A diagonal scroll",
    0x2A: "29/2A diagonal scroll", 0xA3: "A3 vertical scroll area", 0x2E: "2E deactivate scroll",
    0x2F: "2F activate scroll", 0xE3: "E3 NOP",
}
SSD1309_NAMES = {**SSD130X_NAMES, 0xFD: "FD command lock", 0xDC: "DC GPIO",
                 0x8D: "8D (not in the SSD1309 command table)"}
# AD (the SSD1309's IREF select, which luma sends to both) and the SSD1309's FD and DC take one.
SSD130X_COUNTS = {**PARAMETERS, 0xAD: 1}
SSD1309_COUNTS = {**SSD130X_COUNTS, 0xFD: 1, 0xDC: 1}


def _ssd130x_params(b, ssd1309):
    """Parameter count and name of an SSD1306/SSD1309 command byte."""
    names, counts = (SSD1309_NAMES, SSD1309_COUNTS) if ssd1309 else (SSD130X_NAMES, SSD130X_COUNTS)
    if b in names:
        return (counts.get(b, 0), names[b])
    return (0, _single_name(b, start_line=True, pages=8))


def _single_name(b, start_line, pages):
    if b <= 0x0F:
        return "00-0F column low nibble"
    if 0x10 <= b <= 0x1F:
        return "10-1F column high nibble"
    if start_line and 0x40 <= b <= 0x7F:
        return "40-7F start line"
    if 0xB0 <= b < 0xB0 + pages:
        return f"B0-B{pages - 1:X} page address"
    names = {0xA0: "A0/A1 segment remap", 0xA1: "A0/A1 segment remap", 0xA4: "A4/A5 entire display on",
             0xA5: "A4/A5 entire display on", 0xA6: "A6/A7 normal/inverse", 0xA7: "A6/A7 normal/inverse",
             0xAE: "AE/AF display off/on", 0xAF: "AE/AF display off/on", 0xC0: "C0/C8 COM scan",
             0xC8: "C0/C8 COM scan", 0xE3: "E3 NOP"}
    return names.get(b, f"{b:02X} (not in the command table)")


SH1106_NAMES = {0x81: "81 contrast", 0xA8: "A8 multiplex", 0xAD: "AD DC-DC", 0xD3: "D3 display offset",
                0xD5: "D5 clock divide/osc", 0xD9: "D9 precharge", 0xDA: "DA COM pins",
                0xDB: "DB VCOM deselect", 0x8D: "8D (not in the SH1106 command table)"}
# 8Dh is not the SH1106's, but luma sends it with the SSD1306's parameter.
SH1106_COUNTS = {**SH1106_PARAMETERS, 0x8D: 1}


def _sh1106_params(b):
    if b in SH1106_NAMES:
        return (SH1106_COUNTS[b], SH1106_NAMES[b])
    if 0x30 <= b <= 0x33:
        return (0, "30-33 pump voltage")
    return (0, _single_name(b, start_line=True, pages=8))


def _sh1107_params(b):
    fixed = {0x81: (1, "81 contrast"), 0xA8: (1, "A8 multiplex"), 0xAD: (1, "AD DC-DC"),
             0xD3: (1, "D3 display offset"), 0xD5: (1, "D5 clock divide/osc"), 0xD9: (1, "D9 precharge"),
             0xDB: (1, "DB VCOM deselect"), 0xDC: (1, "DC start line"),
             0xDA: (1, "DA (not in the SH1107 command table)"),
             0x20: (0, "20/21 addressing mode"), 0x21: (0, "20/21 addressing mode")}
    if b in fixed:
        return fixed[b]
    return (0, _single_name(b, start_line=False, pages=16))


def parse(controller, stream):
    """[(name, bytes)] for a command byte stream, per the controller's command table."""
    table = {"ssd1306": lambda b: _ssd130x_params(b, False), "ssd1309": lambda b: _ssd130x_params(b, True),
             "sh1106": _sh1106_params, "sh1107": _sh1107_params}[controller]
    out, i = [], 0
    while i < len(stream):
        n, name = table(stream[i])
        out.append((name, bytes(stream[i:i + 1 + n])))
        i += 1 + n
    return out


# ---- luma.oled side ----------------------------------------------------------------------------

class RecordingSerial:
    """Stands in for luma.core's serial interface: records command() and data() calls in order."""

    def __init__(self):
        self.calls = []

    def command(self, *cmd):
        self.calls.append(("cmd", bytes(cmd)))

    def data(self, data):
        self.calls.append(("data", len(data)))

    def cleanup(self):
        pass


def luma_side(cls_name, w, h):
    import luma.oled.device as dev
    serial = RecordingSerial()
    device = getattr(dev, cls_name)(serial, width=w, height=h)
    device.persist = True            # no blanking at interpreter exit
    device.cleanup = lambda: None
    return split(serial.calls)


# ---- Islet side --------------------------------------------------------------------------------

def islet_side(isletd, controller, w, h, seconds):
    with tempfile.TemporaryDirectory(prefix="luma-init-") as tmp:
        cap = os.path.join(tmp, "cap.txt")
        # --test-pattern: an idle daemon sends no frame, and so no AFh, in its first seconds;
        # the pattern makes it send one frame, so display-on's place is visible. The init bytes
        # do not depend on it.
        argv = [isletd, "--bus", "mock", "--buttons", "none", "--preview", "none",
                "--controller", controller, "--size", f"{w}x{h}", "--test-pattern", "2",
                "--socket", os.path.join(tmp, "s"), "--state-dir", os.path.join(tmp, "st"), "--capture", cap]
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(seconds)
        p.send_signal(signal.SIGTERM)
        try:
            _, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        calls = []
        for _, _, raw in read_capture(cap)[1]:
            if not raw:
                continue
            if raw[0] == 0x00:
                calls.append(("cmd", raw[1:]))
            elif raw[0] == 0x40:
                calls.append(("data", len(raw) - 1))
        if not calls:
            sys.exit(f"luma_init_compare: isletd wrote no transactions for {controller} {w}x{h}: "
                     + err.decode(errors="replace").strip())
        return split(calls)


def split(calls):
    """(init bytes, first frame's addressing bytes, where AFh comes).

    The init is every command call (luma) or command transaction (Islet) before the first data,
    except the last one when it directly precedes the data: that one addresses the first frame
    (luma: 21/22 windows or B0 + column nibbles from display(); Islet: its window transaction)."""
    before = []
    seen_data = False
    display_on = "never"
    for kind, val in calls:
        if kind == "data":
            seen_data = True
            continue
        if not seen_data:
            before.append(val)
        if display_on == "never" and seen_data and val[-1:] == b"\xaf":
            display_on = "after the first frame"
    addressing = b""
    if seen_data and len(before) > 1:
        addressing = before.pop()
    return b"".join(before), addressing, display_on


# ---- comparison --------------------------------------------------------------------------------

def keyed(cmds):
    """[(key, name, bytes)]: the n-th occurrence of a command name gets key 'name#n'."""
    seen, out = {}, []
    for name, b in cmds:
        seen[name] = seen.get(name, 0) + 1
        out.append((name if seen[name] == 1 else f"{name}#{seen[name]}", name, b))
    return out


def lcs(a, b):
    m, n = len(a), len(b)
    t = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m - 1, -1, -1):
        for j in range(n - 1, -1, -1):
            t[i][j] = t[i + 1][j + 1] + 1 if a[i] == b[j] else max(t[i + 1][j], t[i][j + 1])
    i = j = 0
    keep = set()
    while i < m and j < n:
        if a[i] == b[j]:
            keep.add(a[i]); i += 1; j += 1
        elif t[i + 1][j] >= t[i][j + 1]:
            i += 1
        else:
            j += 1
    return keep


def hexs(b):
    return " ".join(f"{x:02X}" for x in b) if b is not None else None


def compare(controller, luma_init, islet_init):
    lk, ik = keyed(parse(controller, luma_init)), keyed(parse(controller, islet_init))
    lmap = {k: (pos, b) for pos, (k, _, b) in enumerate(lk)}
    imap = {k: (pos, b) for pos, (k, _, b) in enumerate(ik)}
    common = [k for k, _, _ in lk if k in imap]
    in_order = lcs(common, [k for k, _, _ in ik if k in lmap])
    diffs = []
    for k, name, b in lk:
        if k not in imap:
            diffs.append({"command": name, "kind": "luma only", "luma": hexs(b), "islet": None,
                          "luma_pos": lmap[k][0] + 1, "islet_pos": None})
            continue
        ib = imap[k][1]
        kinds = []
        if b != ib:
            kinds.append("value")
        if k not in in_order:
            kinds.append("order")
        if kinds:
            diffs.append({"command": name, "kind": " + ".join(kinds), "luma": hexs(b), "islet": hexs(ib),
                          "luma_pos": lmap[k][0] + 1, "islet_pos": imap[k][0] + 1})
    for k, name, b in ik:
        if k not in lmap:
            diffs.append({"command": name, "kind": "Islet only", "luma": None, "islet": hexs(b),
                          "luma_pos": None, "islet_pos": imap[k][0] + 1})
    diffs.sort(key=lambda d: (d["islet_pos"] or 999, d["luma_pos"] or 999))
    return ([hexs(b) for _, _, b in lk], [hexs(b) for _, _, b in ik], diffs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_isletd = "/tmp/islet-artifacts/isletd"
    if not os.access(default_isletd, os.X_OK):
        default_isletd = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dist", "bin", "isletd")
    ap.add_argument("--isletd", default=default_isletd, help="isletd binary (default: %(default)s)")
    ap.add_argument("--out", default="luma-init-compare.json", help="JSON output (default: %(default)s)")
    ap.add_argument("--seconds", type=float, default=1.2, help="how long isletd runs per module")
    a = ap.parse_args()
    try:
        import luma.oled
        import luma.core
    except ImportError as e:
        sys.exit(f"luma_init_compare: {e}; run bash bench/ensure_venv.sh .venv-bench and use .venv-bench/bin/python")

    result = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "luma": f"luma.oled {luma.oled.__version__}, luma.core {luma.core.__version__}",
              "isletd": os.path.abspath(a.isletd), "modules": [],
              "not_in_luma": [{"controller": c, "size": f"{w}x{h}", "why": why} for c, w, h, why in NOT_IN_LUMA]}
    for controller, cls, w, h in MODULES:
        l_init, l_addr, l_on = luma_side(cls, w, h)
        i_init, i_addr, i_on = islet_side(a.isletd, controller, w, h, a.seconds)
        for init, on in ((l_init, "l"), (i_init, "i")):
            if any(b == b"\xaf" for _, b in parse(controller, init)):
                if on == "l":
                    l_on = "in the init, before any frame"
                else:
                    i_on = "in the init, before any frame"
        l_cmds, i_cmds, diffs = compare(controller, l_init, i_init)
        if l_on != i_on:
            diffs.append({"command": "AF display on", "kind": "order", "luma": l_on, "islet": i_on,
                          "luma_pos": None, "islet_pos": None})
        result["modules"].append({"controller": controller, "size": f"{w}x{h}",
                                  "luma_init": l_cmds, "islet_init": i_cmds,
                                  "first_frame_addressing": {"luma": hexs(l_addr), "islet": hexs(i_addr)},
                                  "display_on": {"luma": l_on, "islet": i_on},
                                  "differences": diffs})

    print(f"luma_init_compare: {result['luma']} against {result['isletd']}")
    for m in result["modules"]:
        print(f"\n{m['controller']} {m['size']}: {len(m['differences'])} difference(s); "
              f"AF: luma {m['display_on']['luma']}, Islet {m['display_on']['islet']}")
        print(f"  luma : {' | '.join(m['luma_init'])}")
        print(f"  Islet: {' | '.join(m['islet_init'])}")
        if m["differences"]:
            print(f"  {'command':40} {'kind':16} {'luma (pos)':18} {'Islet (pos)':18}")
        for d in m["differences"]:
            lp = f"{d['luma'] or '-'}" + (f" (#{d['luma_pos']})" if d["luma_pos"] else "")
            ip = f"{d['islet'] or '-'}" + (f" (#{d['islet_pos']})" if d["islet_pos"] else "")
            print(f"  {d['command']:40} {d['kind']:16} {lp:18} {ip:18}")
    for n in result["not_in_luma"]:
        print(f"\n{n['controller']} {n['size']}: not compared: {n['why']}")
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"\nluma_init_compare: wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
