#!/usr/bin/env python3
"""Side-by-side run of Islet's driver and luma.oled on the same frames (make bench-compare).

islet-bench export renders the 10-minute countdown with Islet's renderer, writes the frames
(page-packed, SSD1306 GDDRAM layout, one frame after another) and our own frame-to-bus figures.
This script pushes the same frames through luma.oled's ssd1306 device on a byte-counting bus and
writes bench-compare.json with both sides and the ratios.

Bytes are counted per I2C transaction after the address byte (control byte included), as
islet-bench counts them. luma.core's i2c interface has two paths and both are measured:
- "i2c": luma's default on a Pi (`i2c(port=1)`, smbus2 managed): commands through
  write_i2c_block_data, data through one i2c_rdwr message of up to 4096 bytes;
- "smbus": a caller-supplied SMBus object: data in 32-byte write_i2c_block_data chunks.
CPU time is the thread's CPU clock around device.display(image) alone: the PIL image is built
from the frame before the clock starts (render excluded), so the figure is frame -> bus bytes.
Bytes, and that luma.oled sent every exported frame byte for byte, come from an untimed pass;
the timed passes count only, as our counting bus does.
Runs offline: only luma.oled, luma.core, smbus2 and Pillow from the venv, no device, no network.
"""
import argparse
import json
import statistics
import sys
import time


class CountingBus:
    """Stands in for smbus2.SMBus: counts transactions and the bytes after the address byte.

    With keep_ram set it also keeps the display data of the latest update, to check that luma.oled
    sent the exported frame; that copy is off while the CPU time is measured, so the counter costs
    luma.oled's side no more than Islet's counting bus costs ours (two additions)."""

    def __init__(self, *args, **kwargs):
        self.transactions = 0
        self.bytes = 0
        self.keep_ram = False
        self.ram = bytearray()

    def write_i2c_block_data(self, addr, register, data):
        # One SMBus I2C-block write: the register byte (luma's control byte) then the data.
        self.transactions += 1
        self.bytes += 1 + len(data)
        if self.keep_ram:
            self._data(register, data)

    def i2c_rdwr(self, *msgs):
        # One combined transaction per message (smbus2 i2c_msg; len counts the control byte).
        for m in msgs:
            self.transactions += 1
            self.bytes += len(m)
            if self.keep_ram:
                raw = list(m)
                self._data(raw[0], raw[1:])

    def _data(self, control, data):
        if control == 0x40:
            self.ram += bytes(data)
        else:
            self.ram = bytearray()  # a command (the window) starts a new update

    def close(self):
        pass

    def reset(self):
        self.transactions = 0
        self.bytes = 0


def load_frames(path, width, height):
    pages = (height + 7) // 8
    size = width * pages
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) % size != 0:
        sys.exit(f"luma_compare: {path} holds {len(blob)} bytes, not a whole number of {width}x{height} frames")
    return [blob[i:i + size] for i in range(0, len(blob), size)]


def to_image(frame, width, height):
    from PIL import Image
    img = Image.new("1", (width, height))
    px = img.load()
    for y in range(height):
        page, bit = divmod(y, 8)
        row = page * width
        for x in range(width):
            if frame[row + x] >> bit & 1:
                px[x, y] = 1
    return img


def make_device(transport, width, height):
    import smbus2
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306
    if transport == "i2c":
        # luma's own managed path, exactly as `i2c(port=1)` builds it, with the bus class
        # swapped for the counter so no /dev/i2c-1 is needed.
        real = smbus2.SMBus
        smbus2.SMBus = CountingBus
        try:
            serial = i2c(port=1, address=0x3C)
        finally:
            smbus2.SMBus = real
        bus = serial._bus
    else:
        bus = CountingBus()
        serial = i2c(bus=bus, address=0x3C)
    device = ssd1306(serial, width=width, height=height)
    device.cleanup = lambda: None  # luma blanks the panel at exit; the counter has nothing to blank
    return device, bus


def measure_luma(transport, images, frames, reps):
    width, height = images[0].size
    device, bus = make_device(transport, width, height)
    init_bytes = bus.bytes
    bus.reset()
    device.display(images[0])
    full_bytes, full_txn = bus.bytes, bus.transactions
    bus.reset()
    # An untimed pass: the bytes and transactions of the ticks, and the display data of each
    # update, which must be the exported frame byte for byte.
    bus.keep_ram = True
    for i, img in enumerate(images[1:], start=1):
        device.display(img)
        if bytes(bus.ram) != bytes(frames[i]):
            sys.exit(f"luma_compare: luma.oled ({transport}) sent other display data than exported frame {i}; "
                     "the two sides would not be comparing the same frames")
    tick_bytes, tick_txn = bus.bytes, bus.transactions
    bus.keep_ram = False
    # The CPU figure is the lowest of the passes' medians: the pass the other tenants of a shared
    # machine disturbed least (islet-bench export takes ours the same way).
    pass_medians = []
    samples = 0
    for rep in range(reps):
        device.display(images[0])
        per_tick_cpu = []
        for img in images[1:]:
            t = time.thread_time_ns()
            device.display(img)
            per_tick_cpu.append(time.thread_time_ns() - t)
        pass_medians.append(statistics.median(per_tick_cpu))
        samples += len(per_tick_cpu)
    ticks = len(images) - 1
    return {
        "init_bytes": init_bytes,
        "full_frame_bytes": full_bytes,
        "full_frame_transactions": full_txn,
        "bytes_per_tick": tick_bytes / ticks,
        "transactions_per_tick": tick_txn / ticks,
        "cpu_ns_per_tick": min(pass_medians),
        "cpu_samples": samples,
        "cpu_passes": len(pass_medians),
    }


def wire_us(bytes_, transactions, hz):
    """9 SCL clocks per byte after the address; start, address byte and stop per transaction."""
    return (bytes_ * 9 + transactions * 11) / hz * 1e6


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", required=True, help="JSON written by islet-bench export")
    ap.add_argument("--out", default="bench-compare.json")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--no-luma", metavar="REASON", help="write our side only and say why")
    a = ap.parse_args()

    with open(a.ours) as f:
        ours = json.load(f)
    result = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "islet": ours}
    if not ours.get("available"):
        result["luma"] = None
        result["skipped"] = "Islet side unavailable: " + str(ours.get("missing"))
        print("bench-compare: " + result["skipped"])
        write(a.out, result)
        return 0
    if a.no_luma:
        result["luma"] = None
        result["skipped"] = a.no_luma
        print("bench-compare: luma.oled side skipped: " + a.no_luma)
        write(a.out, result)
        return 0

    import luma.oled
    import luma.core
    width, height = ours["width"], ours["height"]
    frames = load_frames(ours["frames"], width, height)
    images = [to_image(fr, width, height) for fr in frames]
    luma_side = {"version": f"luma.oled {luma.oled.__version__}, luma.core {luma.core.__version__}",
                 "python": sys.version.split()[0]}
    for transport in ("i2c", "smbus"):
        luma_side[transport] = measure_luma(transport, images, frames, a.reps)
    for side in (ours, luma_side):
        for t in ("i2c", "smbus"):
            for khz in (100, 400):
                side[t][f"wire_us_per_tick_{khz}khz"] = wire_us(side[t]["bytes_per_tick"],
                                                                side[t]["transactions_per_tick"], khz * 1000)
                # One change (a press, a tick) to its last byte on the wire: the CPU's frame to
                # bus bytes, then those bytes on the wire (a write blocks until they are out).
                side[t][f"update_to_last_byte_us_{khz}khz"] = (side[t]["cpu_ns_per_tick"] / 1000
                                                               + side[t][f"wire_us_per_tick_{khz}khz"])
    result["luma"] = luma_side
    result["ratios_luma_over_islet"] = {
        t: {
            "bytes_per_tick": ratio(luma_side[t]["bytes_per_tick"], ours[t]["bytes_per_tick"]),
            "transactions_per_tick": ratio(luma_side[t]["transactions_per_tick"], ours[t]["transactions_per_tick"]),
            "cpu_ns_per_tick": ratio(luma_side[t]["cpu_ns_per_tick"], ours[t]["cpu_ns_per_tick"]),
            "wire_us_per_tick": ratio(luma_side[t]["wire_us_per_tick_400khz"], ours[t]["wire_us_per_tick_400khz"]),
            "update_to_last_byte_us_400khz": ratio(luma_side[t]["update_to_last_byte_us_400khz"],
                                                   ours[t]["update_to_last_byte_us_400khz"]),
            "update_to_last_byte_us_100khz": ratio(luma_side[t]["update_to_last_byte_us_100khz"],
                                                   ours[t]["update_to_last_byte_us_100khz"]),
        }
        for t in ("i2c", "smbus")
    }
    write(a.out, result)
    print_table(result, len(frames) - 1)
    return 0


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    print(f"bench-compare: wrote {path}")


def fmt(v, digits=1):
    if v is None:
        return "n/a"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


# The figures of each transport, as the table here and docs/PERFORMANCE.md's (bench/figures_md.py)
# show them: (key, label here, label in the docs).
FIGURES = (("bytes_per_tick", "bytes/tick", "bytes per tick"),
           ("transactions_per_tick", "transactions/tick", "transactions per tick"),
           ("cpu_ns_per_tick", "CPU ns/tick", "CPU per tick, frame to bus (ns)"),
           ("wire_us_per_tick_400khz", "wire us/tick 400kHz", "wire time per tick at 400 kHz (µs)"),
           ("wire_us_per_tick_100khz", "wire us/tick 100kHz", "wire time per tick at 100 kHz (µs)"),
           ("update_to_last_byte_us_400khz", "update to last byte 400kHz", "one change to its last byte, CPU + wire, 400 kHz (µs)"),
           ("update_to_last_byte_us_100khz", "update to last byte 100kHz", "one change to its last byte, CPU + wire, 100 kHz (µs)"))


def ratio_key(key):
    """The ratio behind a figure: one wire-time ratio stands for both clock rates."""
    return "wire_us_per_tick" if key.startswith("wire_us_per_tick") else key


def print_table(r, ticks):
    ours, luma = r["islet"], r["luma"]
    print(f"\nbench-compare {r['date']}: {ticks} one-second ticks of a 10-minute countdown, "
          f"{ours['width']}x{ours['height']} compact, same frames on both sides")
    print(f"  {'':34} {'Islet':>12} {'luma.oled':>12} {'luma/Islet':>11}")
    for t, name in (("i2c", "plain I2C"), ("smbus", "SMBus")):
        rat = r["ratios_luma_over_islet"][t]
        for key, label, _ in FIGURES:
            print(f"  {name + ' ' + label:34} {fmt(ours[t][key]):>12} {fmt(luma[t][key]):>12} "
                  f"{fmt(rat[ratio_key(key)], 2) + 'x':>11}")
    print(f"  {'full frame bytes (I2C)':34} {fmt(ours['i2c']['full_frame_bytes']):>12} "
          f"{fmt(luma['i2c']['full_frame_bytes']):>12}")
    print(f"  floor (changed RAM bytes + 1 control byte): {fmt(ours['floor_bytes_per_tick'])} bytes/tick")


if __name__ == "__main__":
    sys.exit(main())
