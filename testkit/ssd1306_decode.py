"""A trace decoded as the panel: the controller fed with every write transaction to it, the
glass it shows and a report of its state (what systest/decode_ssd1306_trace.py prints)."""

from testkit.ssd1306 import RAM_PAGES, SSD1306, feed
from testkit.ssd1306_sh1106 import SH1106, SH1106_COLUMNS
from testkit.ssd1306_trace import bursts, transactions

CONTROLLERS = {"ssd1306": SSD1306, "sh1106": SH1106}
DEFAULT_COLUMN_OFFSET = {name: cls.COLUMN_OFFSET for name, cls in CONTROLLERS.items()}


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
