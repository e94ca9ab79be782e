/// The one string escaper: a string as a double-quoted literal of Swift (the strings generator's
/// output) or of JSON (the bench's reports). Both escape the quote, the backslash and the line
/// feed the same way; they differ only in how other characters are spelled.
public enum Quoted {
    public enum Syntax: Sendable {
        /// Swift source: every scalar outside printable ASCII as `\u{…}`, so generated code is ASCII.
        case swift
        /// RFC 8259: tab as `\t`, other control characters as `\u00XX`, the rest as they are.
        case json
    }

    public static func literal(_ s: String, _ syntax: Syntax) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch (u, syntax) {
            case ("\"", _): out += "\\\""
            case ("\\", _): out += "\\\\"
            case ("\n", _): out += "\\n"
            case ("\t", .json): out += "\\t"
            case (_, .swift) where u.value < 0x20 || u.value > 0x7E:
                out += "\\u{\(String(u.value, radix: 16))}"
            case (_, .json) where u.value < 0x20:
                out += "\\u00" + Hex.byte(UInt8(u.value))
            default:
                out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
