import IsletFrame

/// A custom icon sent with a request (Home Assistant's `icon` field when it is not a name): a
/// small 1-bit picture as base64 of a PBM (P1 or P4) or a PNG, exactly 12×12, 16×16 or 32×32.
/// The other two sizes are derived from it (`IconImage.resample`). Pure: bytes in, masks out.
///
/// Everything here comes from outside: the text length is checked before decoding, the byte
/// count is known before anything is allocated for it, the picture's size is read from its
/// header and checked before its pixels are. A request keeps the base64 text it was accepted
/// with; decoding it again (after a restart, from the state file) gives the same masks.
public enum CustomIcon {
    /// The most base64 text accepted: what encodes `maxBytes` bytes.
    public static let maxBase64Characters = (maxBytes + 2) / 3 * 4
    /// The most decoded bytes accepted. A 32×32 plain PBM with a space after every digit is
    /// about 2.1 kB; an RGBA PNG of 32×32 stored without compression about 4.3 kB.
    public static let maxBytes = 8192

    /// Decodes standard base64 (RFC 4648 §4 alphabet, `=` padding, no line breaks), then the picture.
    public static func decode(base64 text: String) throws(CustomIconError) -> IconImage {
        try decode(bytes: try Base64.decode(text))
    }

    /// Decodes a PBM (P1, P4) or PNG picture.
    public static func decode(bytes: [UInt8]) throws(CustomIconError) -> IconImage {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes: bytes.count) }
        let picture: (rows: [UInt32], size: IconSize)
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "1") || bytes[1] == UInt8(ascii: "4") {
            picture = try PBMIcon.decode(bytes)
        } else if bytes.starts(with: PNGIcon.signature) {
            picture = try PNGIcon.decode(bytes)
        } else {
            throw .unknownFormat(firstBytes: bytes.prefix(4).map { Hex.byte($0) }.joined(separator: " "))
        }
        guard picture.rows.contains(where: { $0 != 0 }) else { throw .blank }
        return IconImage(single: picture.rows, size: picture.size)
    }

    /// The icon size of a `width`×`height` picture, or the error that names both.
    static func size(_ format: String, width: Int, height: Int) throws(CustomIconError) -> IconSize {
        guard width == height, let size = IconSize(rawValue: width) else {
            throw .wrongSize(format: format, width: width, height: height)
        }
        return size
    }
}

/// Why a custom icon was refused; the message says what is wrong and what is accepted.
public enum CustomIconError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(characters: Int)
    case notBase64(position: Int)
    case badBase64Length(characters: Int)
    case tooLarge(bytes: Int)
    case unknownFormat(firstBytes: String)
    case wrongSize(format: String, width: Int, height: Int)
    case truncated(format: String, detail: String)
    case malformed(format: String, detail: String)
    case trailingData(format: String, bytes: Int)
    case blank

    public var description: String {
        let what = switch self {
        case .empty: "no picture (the text is empty)"
        case .tooLong(let n): "\(n) base64 characters; at most \(CustomIcon.maxBase64Characters)"
        case .notBase64(let at):
            "not base64: character \(at + 1) is outside A-Z a-z 0-9 + / (or a misplaced =); send standard base64 without line breaks"
        case .badBase64Length(let n): "\(n) base64 characters is not a multiple of 4 (is the = padding missing?)"
        case .tooLarge(let n): "\(n) bytes; at most \(CustomIcon.maxBytes)"
        case .unknownFormat(let first): "neither PBM (P1, P4) nor PNG (it starts with \(first))"
        case .wrongSize(let f, let w, let h): "\(f) is \(w)×\(h); icons are \(IconSize.listed)"
        case .truncated(let f, let d): "\(f) ends early: \(d)"
        case .malformed(let f, let d): "\(f): \(d)"
        case .trailingData(let f, let n): "\(f) has \(n) bytes after the picture"
        case .blank: "no lit pixel (lit is 1 in PBM; white and at least half opaque in PNG)"
        }
        return "custom icon: " + what
    }
}

/// Strict base64 (RFC 4648 §4): its length checked before anything is decoded.
enum Base64 {
    static func decode(_ text: String) throws(CustomIconError) -> [UInt8] {
        let utf8 = text.utf8
        guard !utf8.isEmpty else { throw .empty }
        guard utf8.count <= CustomIcon.maxBase64Characters else { throw .tooLong(characters: utf8.count) }
        guard utf8.count % 4 == 0 else { throw .badBase64Length(characters: utf8.count) }
        let padding = utf8.reversed().prefix(2).prefix(while: { $0 == UInt8(ascii: "=") }).count
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 4 * 3 - padding)
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
            default: throw .notBase64(position: i)
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
