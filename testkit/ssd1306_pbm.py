"""The glass as a picture: PBM files (written plain, read plain or raw), text art, and the
number of pixels two pictures differ in."""

import sys


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
