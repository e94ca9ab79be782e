import IsletFrame

/// An icon ready to draw at every `IconSize`: one row mask per pixel row (bit x is column x),
/// built once (built-in icons at start, a custom icon when it is accepted), so drawing a frame
/// only reads them.
public struct IconImage: Hashable, Sendable {
    let small: [UInt32]
    let medium: [UInt32]
    let large: [UInt32]

    package init(small: [UInt32], medium: [UInt32], large: [UInt32]) {
        self.small = small
        self.medium = medium
        self.large = large
    }

    /// The row masks at `size`: `size.pixels` rows, bit x lit at column x.
    public func rows(_ size: IconSize) -> [UInt32] {
        switch size {
        case .small: small
        case .medium: medium
        case .large: large
        }
    }

    /// Whether the pixel at column `x`, row `y` of the `size` drawing is lit (false outside it).
    public func isLit(_ size: IconSize, x: Int, y: Int) -> Bool {
        let r = rows(size)
        guard x >= 0, x < size.pixels, y >= 0, y < r.count else { return false }
        return r[y] >> UInt32(x) & 1 == 1
    }

    /// The drawing at `size` as a bitmap of `size.pixels` square: for previews and galleries.
    public func bitmap(_ size: IconSize) -> Bitmap {
        var b = Bitmap(width: size.pixels, height: size.pixels)
        for y in 0..<size.pixels {
            for x in 0..<size.pixels where isLit(size, x: x, y: y) { b[x, y] = true }
        }
        return b
    }

    /// The drawing at `size` as text rows, `#` lit: what tests compare with ASCII art.
    public func art(_ size: IconSize) -> [String] {
        (0..<size.pixels).map { y in String((0..<size.pixels).map { isLit(size, x: $0, y: y) ? "#" : "." }) }
    }

    /// Text rows (`#` lit) as masks.
    package static func masks(_ art: [String]) -> [UInt32] {
        art.map { row in
            var m: UInt32 = 0
            for (x, c) in row.enumerated() where c == "#" && x < 32 { m |= 1 << UInt32(x) }
            return m
        }
    }

    /// A custom icon that arrived at one size, with the other two sizes derived from it (see
    /// `resample`): a person sends one picture, the pill needs three.
    package init(single rows: [UInt32], size: IconSize) {
        func at(_ target: IconSize) -> [UInt32] {
            target == size ? rows : Self.resample(rows, from: size.pixels, to: target.pixels)
        }
        self.init(small: at(.small), medium: at(.medium), large: at(.large))
    }

    /// Square `rows` of side `from` to side `to`.
    /// - Smaller: each source pixel falls in the one target pixel that holds its centre, and a
    ///   target pixel is lit when any of its source pixels is: a 1-pixel line survives (plain
    ///   nearest neighbour would drop every other one at 32 → 16).
    /// - Larger: nearest neighbour, each target pixel takes the source pixel under its centre
    ///   (16 → 32 doubles every pixel).
    package static func resample(_ rows: [UInt32], from: Int, to: Int) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: to)
        if to < from {
            for sy in 0..<min(from, rows.count) {
                let ty = (2 * sy + 1) * to / (2 * from)
                for sx in 0..<from where rows[sy] >> UInt32(sx) & 1 == 1 {
                    out[ty] |= 1 << UInt32((2 * sx + 1) * to / (2 * from))
                }
            }
        } else {
            for ty in 0..<to {
                let sy = (2 * ty + 1) * from / (2 * to)
                guard sy < rows.count else { continue }
                for tx in 0..<to where rows[sy] >> UInt32((2 * tx + 1) * from / (2 * to)) & 1 == 1 {
                    out[ty] |= 1 << UInt32(tx)
                }
            }
        }
        return out
    }
}

extension Bitmap {
    /// `icon` at `size` with its top-left pixel at (`x`, `y`), lit pixels set (nothing cleared);
    /// `dotted`: only the lit pixels where x + y is even (a stale activity's icon). What every
    /// presentation draws an icon with, and the page's home-screen icons too.
    public mutating func draw(_ icon: IconImage, size: IconSize, x: Int, y: Int, dotted: Bool = false) {
        light(rows: icon.rows(size)[...], x: x, y: y, dotted: dotted)
    }
}
