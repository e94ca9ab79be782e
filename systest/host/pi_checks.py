"""What the Pi 3 leg (systest/pi.py) checks once the guest is done: the console's lines from
systest/pi/init and QEMU's I2C trace, decoded as an SSD1306 (testkit/, written from the
datasheet), against `isletctl render` of the state the daemon reported at each step."""
import json
import math
import os
import subprocess

from testkit.ssd1306 import SSD1306, feed
from testkit.ssd1306_capture import read_capture
from testkit.ssd1306_decode import decode
from testkit.ssd1306_pbm import ascii_art, compare, read_pbm, write_pbm
from testkit.ssd1306_trace import QEMU_RE, bursts

PANEL, MARKER, SIZE = 0x3C, 0x50, (128, 64)


class Console:
    """The guest's '@@' lines: info values, status answers, blocks of text, failures."""

    def __init__(self, path):
        self.info, self.status, self.blocks, self.fails, self.done = {}, {}, {}, [], None
        block = None
        with open(path, errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\r\n")
                if not line.startswith("@@"):
                    continue
                word, _, rest = line[2:].partition(" ")
                if word == "|" and block is not None:
                    self.blocks[block].append(rest)
                elif word == "begin":
                    block = rest
                    self.blocks[block] = []
                elif word == "end":
                    block = None
                elif word == "info":
                    k, _, v = rest.partition(" ")
                    self.info.setdefault(k, []).append(v)
                elif word == "status":
                    n, name, which, text = (rest.split(" ", 3) + ["", "", "", ""])[:4]
                    try:
                        self.status[(int(n), which)] = (name, json.loads(text))
                    except ValueError:
                        self.status[(int(n), which)] = (name, None)
                elif word == "fail":
                    self.fails.append(rest)
                elif word == "done":
                    self.done = rest

    def one(self, key):
        return (self.info.get(key) or [""])[-1]


class Trace:
    """QEMU's I2C trace: each transaction with the line it starts on, the markers' positions."""

    def __init__(self, path):
        with open(path, errors="replace") as f:
            self.lines = f.readlines()
        self.trans, cur = [], None  # (line index, timestamp, address, bytes)
        for i, line in enumerate(self.lines):
            m = QEMU_RE.match(line.strip())
            if not m:
                continue
            what, addr = m["what"], int(m["addr"], 16)
            if what.startswith("start"):
                cur = (i, float(m["ts"]) if m["ts"] else float(i), addr, [])
                self.trans.append(cur)
            elif what.startswith("send") and cur is not None and cur[2] == addr:
                cur[3].append(int(m["data"], 16))
            elif what in ("finish", "nack"):
                cur = None
        self.marks = {}  # step -> line index of its last marker (a step's retry supersedes)
        for i, _, a, data in self.trans:
            if a == MARKER and len(data) >= 2:
                self.marks[data[1]] = i

    def panel(self, start=None, end=None):
        return [(ts, data) for i, ts, a, data in self.trans
                if a == PANEL and (start is None or i >= start) and (end is None or i < end)]

    def decode_to(self, step):
        """The glass and the decoder's report at step's marker (all panel bytes before it)."""
        return decode(self.lines[:self.marks[step]], 1, PANEL, *SIZE, source="qemu")


def render(root, args, out):
    """`isletctl render` of the arm64 package, run in the run's root through qemu-user."""
    # Swift reads the arguments from /proc/self/cmdline: the root gets a /proc of its own,
    # mounted in a mount namespace that ends with the command.
    r = subprocess.run(["unshare", f"--mount-proc={root}/proc", "chroot", root, "/usr/bin/isletctl", "render", "--size", "%dx%d" % SIZE, *args, "-o", "/tmp/r.pbm"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("isletctl render %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    os.replace(f"{root}/tmp/r.pbm", out)
    return read_pbm(out)


def render_args(status):
    """The render flags for the one activity a status answer holds (and its presentation)."""
    acts = status.get("activities") or []
    pres = status.get("presentation", "compact")
    if pres == "test_pattern":
        return ["--test-pattern"]
    if not acts:
        return ["--state", "idle"]
    a = acts[-1]
    phase = a.get("phase")
    state = "paused" if phase == "paused" else "running"
    if "elapsed_seconds" in a:
        return ["--presentation", pres, "--stopwatch", "--state", state, "--elapsed", str(math.floor(a["elapsed_seconds"]))]
    rem = str(math.ceil(a.get("remaining_seconds", 0)))
    if (a.get("attributes") or {}).get("kind") == "until":
        pushed = (a.get("content") or {}).get("pushed") or {}
        args = ["--presentation", pres, "--until", "--remaining", rem]
        if pushed.get("progress") is not None:
            args += ["--progress", str(round(pushed["progress"] * 100))]
        if pushed.get("text"):
            args += ["--text", pushed["text"]]
        return args
    return ["--presentation", pres, "--state", state, "--remaining", rem, "--duration", "3600"]


def state(panel):
    """What a driver's next bytes can depend on: the controller's RAM, display switch, contrast
    and addressing (mode, window, pointers). Two daemons that reach the same state and then the
    same picture must send the same bytes."""
    return (tuple(map(tuple, panel.ram)), panel.display_on, panel.contrast, panel.mode, panel.col, panel.page,
            panel.col_start, panel.col_end, panel.page_start, panel.page_end)


def transitions(groups):
    """Per burst of panel writes (a frame, a command): (state before, state after, wire bytes:
    the address byte and the bytes after it, as the daemon counts bus_bytes)."""
    panel, out = SSD1306(), []
    before = state(panel)
    for group in groups:
        wire = 0
        for data in group:
            feed(panel, list(data))
            wire += len(data) + 1
        after = state(panel)
        out.append((before, after, wire))
        before = after
    return out


def grouped(stamped, gap=0.3):
    """Transactions (time, bytes) in bursts: a gap of more than `gap` seconds starts a new one."""
    starts, groups = set(bursts([t for t, _ in stamped], gap)), []
    for t, data in stamped:
        if t in starts or not groups:
            groups.append([])
        groups[-1].append(data)
    return groups


def mock_transitions(lines):
    """The mock bus's capture (printed by the guest) as transitions."""
    path = "/tmp/.islet-pi-capture"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    _, writes = read_capture(path)
    os.remove(path)
    return transitions(grouped([(ns / 1e9, data) for ns, a, data in writes if a == PANEL]))


__all__ = ["Console", "Trace", "render", "render_args", "transitions", "grouped", "mock_transitions", "ascii_art",
           "compare", "write_pbm"]
