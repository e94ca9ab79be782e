import IsletFrame
import IsletIcons

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
        try decode(bytes: try IconBase64.decode(text))
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

/// A pushed icon's base64: its length checked before anything is decoded, then IsletFrame's
/// strict decoder, its problems in the icon's words.
enum IconBase64 {
    static func decode(_ text: String) throws(CustomIconError) -> [UInt8] {
        let count = text.utf8.count
        guard count > 0 else { throw .empty }
        guard count <= CustomIcon.maxBase64Characters else { throw .tooLong(characters: count) }
        do { return try Base64.decode(text) } catch {
            switch error {
            case .length(let n): throw .badBase64Length(characters: n)
            case .character(let i): throw .notBase64(position: i)
            }
        }
    }
}
