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
