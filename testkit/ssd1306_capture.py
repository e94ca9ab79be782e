"""isletd's mock-bus capture (`--bus mock --capture FILE`, README.md "I²C capture format") read
back: one line a transaction, `<ns since the file was opened> <addr> <bytes after the address>`,
lines starting with `#` comments (the header's `monotonic_ns=N` is CLOCK_MONOTONIC when the file
was opened; a failed transaction is a comment too)."""


def read_capture(path):
    """(the header's monotonic_ns, or None; [(ns, 7-bit address, bytes after the address byte)])."""
    base = None
    writes = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "monotonic_ns=" in line and base is None:
                    base = int(line.rsplit("monotonic_ns=", 1)[1].split()[0])
                continue
            parts = line.split()
            if parts:
                writes.append((int(parts[0]), int(parts[1], 16), bytes(int(x, 16) for x in parts[2:])))
    return base, writes


def write_times(path):
    """When each transaction was written, in seconds of CLOCK_MONOTONIC (time.monotonic())."""
    base, writes = read_capture(path)
    return [(base + ns) / 1e9 for ns, _, _ in writes]
