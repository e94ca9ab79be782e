import IsletIcons
/// PBM (Netpbm's 1-bit format) as a custom icon: P1 (digits) or P4 (packed bits); `1` is lit,
/// as in the PBM files Islet writes. One picture per file: anything after it but white space
/// is refused, not ignored.
enum PBMIcon {
    static func decode(_ b: [UInt8]) throws(CustomIconError) -> (rows: [UInt32], size: IconSize) {
        let plain = b[1] == UInt8(ascii: "1")
        let format = plain ? "PBM (P1)" : "PBM (P4)"
        guard b.count > 2 else { throw .truncated(format: format, detail: "nothing after the magic number") }
        guard isSpace(b[2]) || b[2] == UInt8(ascii: "#") else {
            throw .malformed(format: format, detail: "no white space after the magic number")
        }
        var i = 2
        let width = try number(b, &i, format, "width")
        let height = try number(b, &i, format, "height")
        let size = try CustomIcon.size(format, width: width, height: height)
        let n = size.pixels
        var rows = [UInt32](repeating: 0, count: n)
        if plain {
            for p in 0..<(n * n) {
                while i < b.count, isSpace(b[i]) { i += 1 }
                guard i < b.count else { throw .truncated(format: format, detail: "\(p) of \(n * n) pixels") }
                switch b[i] {
                case UInt8(ascii: "1"): rows[p / n] |= 1 << UInt32(p % n)
                case UInt8(ascii: "0"): break
                default: throw .malformed(format: format, detail: "byte \(i + 1) is not 0 or 1 (pixel \(p + 1))")
                }
                i += 1
            }
            let rest = b[i...].filter { !isSpace($0) }.count
            guard rest == 0 else { throw .trailingData(format: format, bytes: rest) }
        } else {
            // Exactly one white-space byte ends the header; then rows of ⌈n/8⌉ bytes, most
            // significant bit first.
            guard i < b.count, isSpace(b[i]) else { throw .truncated(format: format, detail: "no pixel data after the header") }
            i += 1
            let stride = (n + 7) / 8
            let have = b.count - i
            guard have >= stride * n else { throw .truncated(format: format, detail: "\(have) of \(stride * n) pixel bytes") }
            guard have == stride * n else { throw .trailingData(format: format, bytes: have - stride * n) }
            for y in 0..<n {
                for x in 0..<n where b[i + y * stride + x / 8] >> UInt8(7 - x % 8) & 1 == 1 {
                    rows[y] |= 1 << UInt32(x)
                }
            }
        }
        return (rows, size)
    }

    /// A header number after white space and comments. Digits past the ninth still count for
    /// the message but stop growing the value (a width of 2^31 is reported, not overflowed).
    static func number(_ b: [UInt8], _ i: inout Int, _ format: String, _ what: String) throws(CustomIconError) -> Int {
        while i < b.count {
            if isSpace(b[i]) { i += 1 } else if b[i] == UInt8(ascii: "#") {
                while i < b.count, b[i] != UInt8(ascii: "\n"), b[i] != UInt8(ascii: "\r") { i += 1 }
            } else { break }
        }
        guard i < b.count else { throw .truncated(format: format, detail: "no \(what) in the header") }
        var v = 0, digits = 0
        while i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) {
            v = min(v * 10 + Int(b[i] - UInt8(ascii: "0")), 999_999_999)
            digits += 1
            i += 1
        }
        guard digits > 0 else { throw .malformed(format: format, detail: "the \(what) is not a number (byte \(i + 1))") }
        guard i < b.count else { throw .truncated(format: format, detail: "the header ends after the \(what)") }
        guard isSpace(b[i]) || b[i] == UInt8(ascii: "#") else {
            throw .malformed(format: format, detail: "the \(what) is not a number (byte \(i + 1))")
        }
        return v
    }

    /// Netpbm's white space: space, tab, line feed, vertical tab, form feed, carriage return.
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (0x09...0x0D).contains(c) }
}
