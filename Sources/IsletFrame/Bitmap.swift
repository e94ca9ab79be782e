/// A 1-bit frame stored page-packed, exactly as SSD1306-family GDDRAM holds it:
/// each byte is one column of eight vertical pixels, bit 0 at the top, pages of
/// `width` bytes one after another. The driver diffs and sends it without conversion.
public struct Bitmap: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// `pageCount * width` bytes; byte `page * width + x` holds rows `8*page ..< 8*page+8` of column x.
    public private(set) var bytes: [UInt8]

    public var pageCount: Int { (height + 7) / 8 }

    /// A dark frame. Sizes are clamped to at least 1×1 so no caller can build an empty buffer.
    public init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.bytes = [UInt8](repeating: 0, count: self.width * ((self.height + 7) / 8))
    }

    /// Wraps page-packed bytes; returns nil when the count does not match the size.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        guard width > 0, height > 0, bytes.count == width * ((height + 7) / 8) else { return nil }
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    @inline(__always)
    public func contains(x: Int, y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

    /// Reads a pixel; outside the frame reads as dark.
    @inline(__always)
    public subscript(x: Int, y: Int) -> Bool {
        get {
            guard contains(x: x, y: y) else { return false }
            return bytes[(y >> 3) * width + x] & (1 << UInt8(y & 7)) != 0
        }
        set {
            // Writes outside the frame are clipped, never trapped: layouts may overhang.
            guard contains(x: x, y: y) else { return }
            let i = (y >> 3) * width + x
            if newValue { bytes[i] |= 1 << UInt8(y & 7) } else { bytes[i] &= ~(1 << UInt8(y & 7)) }
        }
    }

    /// Lights the set bits of row masks (bit n of a row is column x + n), the first row at `y`;
    /// `dotted` keeps only the pixels where column + row is even (a stale activity's look). What
    /// glyphs and icons are drawn with; clipped at the frame's edges like every write.
    public mutating func light(rows: ArraySlice<UInt32>, x: Int, y: Int, dotted: Bool = false) {
        for (i, row) in rows.enumerated() {
            var m = row
            let py = y + i
            while m != 0 {
                let px = x + m.trailingZeroBitCount
                m &= m - 1
                if !dotted || (px + py) & 1 == 0 { self[px, py] = true }
            }
        }
    }

    /// The byte for one column of one page (what the panel stores at that RAM address).
    @inline(__always)
    public func byte(page: Int, column: Int) -> UInt8 { bytes[page * width + column] }

    /// Overwrites one page byte; used by decoders such as the emulated panel.
    @inline(__always)
    public mutating func setByte(page: Int, column: Int, _ value: UInt8) {
        bytes[page * width + column] = value & lastPageMask(page)
    }

    /// Turns every pixel off without reallocating.
    public mutating func clear() {
        bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// Fills every pixel of the frame.
    public mutating func fill() {
        for page in 0..<pageCount {
            let m = lastPageMask(page)
            for x in 0..<width { bytes[page * width + x] = m }
        }
    }

    /// Number of lit pixels.
    public var litCount: Int { bytes.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Rows of the last page beyond `height` are not part of the frame; keep them clear
    /// so two equal images always compare equal.
    @inline(__always)
    private func lastPageMask(_ page: Int) -> UInt8 {
        let rows = height - page * 8
        return rows >= 8 ? 0xFF : UInt8((1 << rows) - 1)
    }
}

extension Bitmap {
    /// Builds a frame from ASCII art: `#` (or `X`, `1`) is lit, anything else dark.
    /// Rows shorter than the widest are padded dark. Meant for tests and icons.
    public init(ascii rows: [String]) {
        let w = rows.map(\.count).max() ?? 1
        self.init(width: w, height: max(1, rows.count))
        for (y, row) in rows.enumerated() {
            for (x, c) in row.enumerated() where c == "#" || c == "X" || c == "1" {
                self[x, y] = true
            }
        }
    }

    /// The frame as ASCII art, one string per row, `#` lit and `.` dark.
    public var asciiRows: [String] {
        (0..<height).map { y in String((0..<width).map { self[$0, y] ? "#" : "." }) }
    }
}
