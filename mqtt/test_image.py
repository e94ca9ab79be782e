"""`make test-mqtt`: the pill as Home Assistant's `image` entity (docs/MQTT.md): the panel's picture
as PNG, retained on `<prefix>/image` with discovery on, when it changes and at most once a second.

A subscriber (Debian's mosquitto_sub, through testkit/broker.py) reads it; the PNG is decoded here with
the standard library (signature, chunk CRCs, IHDR, the inflated rows), its size checked against
the panel's (status.panel) times the scale, and with `[web]` its bytes compared with the page's
own `/api/frame.png?scale=2` (the same picture, the same encoder). Discovery schema checks of the
image entity: test_ha.py.
"""
import struct
import time
import unittest
import urllib.request
import zlib

from mqttcase import BrokerCase, figure, require, tearDownModule  # noqa: F401
from testkit.broker import free_port, wait_until

SCALE = 2   # PillImage.scales.first: each panel pixel 2x2


def setUpModule():
    require()


def decode_png(data):
    """(width, height, rows of pixel bytes 0 or 255) of a 1-bit or 8-bit greyscale PNG (the PNG
    specification, ISO/IEC 15948): every chunk's CRC checked, each row's filter undone on bytes
    (a filter's left neighbour is one byte back for both depths), 1-bit rows unpacked high bit
    first. Raises ValueError for anything else."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"no PNG signature: {data[:8]!r}")
    i, chunks = 8, []
    while i < len(data):
        if i + 12 > len(data):
            raise ValueError("a truncated chunk")
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        (crc,) = struct.unpack(">I", data[i + 8 + n:i + 12 + n])
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"chunk {kind!r}: bad CRC")
        chunks.append((kind, body))
        i += 12 + n
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        raise ValueError(f"chunks {[k for k, _ in chunks]}: not IHDR first and IEND last")
    w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth not in (1, 8) or (color, interlace) != (0, 0):
        raise ValueError(f"depth {depth}, colour type {color}, interlace {interlace}: not 1- or 8-bit grey")
    stride = w if depth == 8 else (w + 7) // 8
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    if len(raw) != h * (1 + stride):
        raise ValueError(f"{len(raw)} bytes inflated, not {h} rows of 1 + {stride}")
    rows, prior = [], bytes(stride)
    for r in range(h):
        kind, line = raw[r * (1 + stride)], bytearray(raw[r * (1 + stride) + 1:(r + 1) * (1 + stride)])
        for x in range(stride):
            a = line[x - 1] if x else 0
            b, c = prior[x], (prior[x - 1] if x else 0)
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) // 2
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                raise ValueError(f"row {r}: filter type {kind}")
            line[x] = (line[x] + pred) & 0xFF
        prior = bytes(line)
        if depth == 1:
            line = bytearray(255 if line[x >> 3] >> (7 - (x & 7)) & 1 else 0 for x in range(w))
        rows.append(bytes(line))
    return w, h, rows


class PillImage(BrokerCase):
    client_prefix = "img"

    def retained_image(self, d, timeout=5):
        topic = d.topic("image")
        got = {}
        wait_until(f"a retained picture on {topic}", lambda: got.update(self.broker.retained([topic])) or topic in got,
                   timeout=timeout)
        return got[topic]

    def panel(self, d):
        p = d.status()["status"]["panel"]
        return p["width"], p["height"]

    def test_a_retained_png_of_the_panel_that_changes_when_a_timer_starts(self):
        d = self.daemon()
        width, height = self.panel(d)
        idle = self.retained_image(d)
        w, h, rows = decode_png(idle)
        self.assertEqual((w, h), (width * SCALE, height * SCALE), "not the panel's size times the scale")
        self.assertTrue(all(not any(r) for r in rows), "the idle panel is dark, but the picture is not")

        live = self.broker.listen([d.topic("image")])
        self.addCleanup(live.stop)
        mark = live.mark()
        t0 = time.monotonic()
        self.assertTrue(d.request({"op": "start", "seconds": 600})["ok"])
        m = live.wait_for(lambda m: m.payload and m.payload != idle, timeout=5, start=mark)
        self.assertIsNotNone(m, f"no new picture on {d.topic('image')} after a start: {live.messages}")
        waited = time.monotonic() - t0
        w, h, rows = decode_png(m.payload)
        self.assertEqual((w, h), (width * SCALE, height * SCALE))
        self.assertTrue({px for r in rows for px in r} <= {0, 255}, "pixels neither off nor on")
        lit = sum(1 for r in rows for px in r if px)
        self.assertGreater(lit, 0, "the running timer's picture is dark")
        # Each panel pixel is a SCALE x SCALE block.
        for y in range(0, h, SCALE):
            for x in range(0, w, SCALE):
                block = {rows[y + dy][x + dx] for dy in range(SCALE) for dx in range(SCALE)}
                self.assertEqual(len(block), 1, f"pixel block at {x},{y} is not one colour")
        # What a late subscriber (Home Assistant starting) gets is a picture of the running timer.
        later = self.retained_image(d)
        decode_png(later)
        self.assertNotEqual(later, idle)
        figure(f"pill image: {w}x{h} PNG, {len(idle)} B idle, {len(m.payload)} B running; the first running "
               f"picture {waited * 1000:.0f} ms after the start")

    def test_at_most_one_picture_a_second_and_the_last_one_is_what_the_page_shows(self):
        """A start and 23 toggles in about 2.5 s, then paused: pictures at least a second apart
        (0.9 s allowing for delivery), and once quiet the retained one is the page's
        /api/frame.png (~7 s)."""
        port = free_port()
        d = self.daemon(extra=f"[web]\nlisten = 127.0.0.1:{port}\n")
        self.retained_image(d)
        time.sleep(1.2)   # the idle picture's second is over: the start's goes at once
        live = self.broker.listen([d.topic("image")])
        self.addCleanup(live.stop)
        mark = live.mark()
        t0 = time.monotonic()
        self.assertTrue(d.request({"op": "start", "seconds": 600})["ok"])
        for _ in range(23):   # start + 23 toggles: paused at the end
            time.sleep(0.1)
            d.request({"op": "toggle"})
        self.assertEqual(d.activity()["phase"], "paused")
        time.sleep(2.5)
        got = [(t, m) for t, m in live.timed()[mark:] if m.payload]
        times = [t for t, _ in got]
        gaps = [b - a for a, b in zip(times, times[1:])]
        self.assertGreaterEqual(len(got), 3, f"pictures of a burst of changes over 2.5 s: {got}")
        self.assertTrue(all(g >= 0.9 for g in gaps), f"pictures closer than a second: {[round(g, 3) for g in gaps]}")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/frame.png?scale={SCALE}", timeout=5) as r:
            page = r.read()
        self.assertEqual(self.retained_image(d), page, "the retained picture is not what the panel shows now")
        self.assertEqual(got[-1][1].payload, page)
        figure(f"pill image under a burst of 24 changes in {time.monotonic() - t0 - 2.5:.1f} s: {len(got)} pictures, "
               f"gaps {', '.join(f'{g:.2f}' for g in gaps)} s; the last equals the page's frame.png")

    def test_no_picture_without_discovery(self):
        d = self.daemon(discovery="off")
        d.request({"op": "start", "seconds": 600})
        time.sleep(1.5)
        self.assertEqual(self.broker.retained([d.topic("image")]), {})


if __name__ == "__main__":
    unittest.main()
