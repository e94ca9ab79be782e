"""The Linux kernel's I2C/SMBus trace (tracefs text) as the panel's write transactions.

The events smbus/smbus_write (and optionally smbus/smbus_result, i2c/i2c_write). Each write to
the panel's address becomes one I2C write transaction, the bytes after the address byte:

  SMBus protocol (trace)       bytes after the address byte, on the wire
  I2C_BLOCK_DATA c=C [n-d..]   C d...          (the trace's first buffer byte is the count n)
  BYTE_DATA c=C [b]            C b
  WORD_DATA c=C [lo-hi]        C lo hi
  BLOCK_DATA c=C [n-d..]       C n d...        (the count byte goes on the wire too)
  BYTE c=C                     C
  i2c_write l=N [b..]          b...            (plain I2C messages)

trace_marker lines (MARKER_RE) place a harness's own moments on the trace's clock.

QEMU's own trace of its I²C bus model (`-trace 'i2c_*'`, hw/i2c/trace-events) is read too
(source "qemu"): `i2c_event start(addr:0x3c)`, one `i2c_send send(addr:0x3c) data:0x..` a byte
on the wire after the address, `i2c_event finish(addr:0x3c)`; with `-msg timestamp=on` each line
starts `<pid>@<seconds>.<microseconds>:`. A transaction is what lies between a start and the
next start or finish. The trace names no bus (a run attaches its devices to one).
"""

import re

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


QEMU_RE = re.compile(
    r"^(?:\d+@(?P<ts>\d+\.\d+):)?i2c_(?:event|send|send_async) "
    r"(?P<what>start|start_async|finish|nack|send|send_async)\(addr:0x(?P<addr>[0-9a-f]{2})\)"
    r"(?: data:0x(?P<data>[0-9a-f]{2}))?")


def qemu_transactions(lines):
    """Every write transaction in a QEMU I2C trace: (timestamp or line number, 7-bit address,
    [bytes after the address])."""
    out, cur = [], None
    for n, line in enumerate(lines):
        m = QEMU_RE.match(line.strip())
        if not m:
            continue
        what, addr = m["what"], int(m["addr"], 16)
        if what.startswith("start"):
            cur = (float(m["ts"]) if m["ts"] else float(n), addr, [])
            out.append(cur)
        elif what.startswith("send") and cur is not None and cur[1] == addr:
            cur[2].append(int(m["data"], 16))
        elif what in ("finish", "nack"):
            cur = None
    return out


def hexbytes(s):
    return [int(x, 16) for x in s.split("-")] if s else []


def transactions(lines, bus, addr, source="auto"):
    """The write transactions to (bus, addr): a list of (timestamp, [bytes after the address]).
    source "qemu" reads QEMU's trace (any bus: it names none); "auto" takes it when the lines are
    QEMU's."""
    if source == "qemu" or (source == "auto" and any(QEMU_RE.match(l.strip()) for l in lines[:50])):
        return [(ts, data) for ts, a, data in qemu_transactions(lines) if a == addr]
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


def markers(lines):
    """Every trace_marker line: (timestamp, text without surrounding blanks)."""
    return [(float(m["ts"]), m["text"].strip()) for m in (MARKER_RE.search(l) for l in lines) if m]


def bursts(times, gap=0.3):
    """Groups of transactions separated by more than `gap` seconds: start times."""
    out = []
    last = None
    for t in times:
        if last is None or t - last > gap:
            out.append(t)
        last = t
    return out
