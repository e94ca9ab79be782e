/// The one hexadecimal codec: capture files, I²C error texts, the emulator's datasheet notation
/// (`AFh`), the preview's page bytes and JSON `\u` escapes all spell bytes with it. It lives in
/// the stdlib-only leaf so every module that writes or reads hex can import it.
public enum Hex {
    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    /// Two digits, lowercase unless asked (`3c`, `AF`).
    public static func byte(_ v: UInt8, uppercase: Bool = false) -> String {
        let d = uppercase ? upper : lower
        return String(decoding: [d[Int(v >> 4)], d[Int(v & 0x0F)]], as: UTF8.self)
    }

    /// The bytes as one run of lowercase digit pairs, no separators.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for x in bytes { out.append(lower[Int(x >> 4)]); out.append(lower[Int(x & 0x0F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of one ASCII hex digit; uppercase digits only when `uppercase` allows them.
    public static func digit(_ c: UInt8, uppercase: Bool = true) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where uppercase: c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Exactly two digits as one byte; nil otherwise. Capture files are written lowercase and read
    /// that way (`uppercase: false`), so a hand-edited file in another spelling is reported.
    public static func byte<S: StringProtocol>(parsing s: S, uppercase: Bool = true) -> UInt8? {
        let u = s.utf8
        guard u.count == 2, let hi = digit(u[u.startIndex], uppercase: uppercase),
              let lo = digit(u[u.index(after: u.startIndex)], uppercase: uppercase) else { return nil }
        return hi << 4 | lo
    }

    /// The inverse of `encode` (either case accepted); nil on an odd length or a non-digit.
    public static func decode(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let hi = digit(u[i]), let lo = digit(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}
