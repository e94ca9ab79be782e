/// Strict base64 (RFC 4648 §4): a length that is a multiple of 4, the 64 characters, `=` only
/// as the last one or two. One decoder for a pushed custom icon (hostile) and the page's
/// embedded assets (ours: a failure there is a build bug).
public enum Base64 {
    public enum Problem: Error, Equatable, Sendable {
        /// Not a multiple of 4 characters.
        case length(characters: Int)
        /// A character outside the alphabet, or `=` before the end.
        case character(position: Int)
    }

    public static func decode(_ text: String) throws(Problem) -> [UInt8] {
        let utf8 = text.utf8
        guard utf8.count % 4 == 0 else { throw .length(characters: utf8.count) }
        let padding = utf8.reversed().prefix(2).prefix(while: { $0 == UInt8(ascii: "=") }).count
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 4 * 3)
        var quad: UInt32 = 0, held = 0
        for (i, c) in utf8.enumerated() {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "=") where i >= utf8.count - padding: v = 0
            default: throw .character(position: i)
            }
            quad = quad << 6 | v
            held += 1
            if held == 4 {
                out.append(UInt8(truncatingIfNeeded: quad >> 16))
                out.append(UInt8(truncatingIfNeeded: quad >> 8))
                out.append(UInt8(truncatingIfNeeded: quad))
                quad = 0
                held = 0
            }
        }
        out.removeLast(padding)
        return out
    }
}
