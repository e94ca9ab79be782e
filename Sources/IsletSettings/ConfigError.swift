/// A config problem: where it is and what would be accepted.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public var origin: String        // "file:line" or "--flag"
    public var message: String
    /// The message quotes what the file said: control characters are escaped (a key of ESC
    /// sequences must not retitle a terminal or split a journal line), and so are the bidi
    /// controls (a U+202E in a value would reorder the rest of the line as a reader sees it),
    /// and it is cut at 1,000 characters (a 900 KB value is not a 900 KB log line).
    public init(_ origin: String, _ message: String) {
        self.origin = Self.printable(origin)
        self.message = Self.printable(message)
    }

    public static let maximumMessage = 1000

    static func printable(_ s: String) -> String {
        var out = ""
        var count = 0
        for u in s.unicodeScalars {
            guard count < maximumMessage else { out += "…"; break }
            let v = u.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + (v < 0x10 ? "0" : "") + String(v, radix: 16)
            } else if isBidiControl(v) {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
            count += 1
        }
        return out
    }
    /// ALM, LRM, RLM, the embeddings and overrides (U+202A-U+202E), the isolates (U+2066-U+2069).
    static func isBidiControl(_ v: UInt32) -> Bool {
        v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
    public var description: String { "\(origin): \(message)" }
    /// sysexits.h EX_CONFIG.
    public static let exitStatus: Int32 = 78
}

/// How a key's value is read, with the config's own message on a bad one: every part's
/// settings speak the same words ("web.read_only = \"x\" is not valid; accepted: on or off").
public struct ConfigValue: Sendable {
    public let section: String
    public let key: String
    public let text: String
    public let origin: String

    public init(section: String, key: String, text: String, origin: String) {
        self.section = section
        self.key = key
        self.text = text
        self.origin = origin
    }

    public func bad(_ accepted: String) -> ConfigError {
        ConfigError(origin, "\(section).\(key) = \"\(text.prefix(200))\" is not valid; accepted: \(accepted)")
    }

    public func onOff() throws(ConfigError) -> Bool {
        switch text {
        case "on", "yes", "true": return true
        case "off", "no", "false": return false
        default: throw bad("on or off (or yes/no, true/false), in lower case")
        }
    }

    public func absolutePath() throws(ConfigError) -> String {
        guard text.hasPrefix("/"), !text.contains("\0") else { throw bad("an absolute file path") }
        return text
    }

    public func int(_ range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let v = Int(text), range.contains(v) else { throw bad("a whole number from \(range.lowerBound) to \(range.upperBound)") }
        return v
    }

    public func choice<E: RawRepresentable & CaseIterable>(_ t: E.Type) throws(ConfigError) -> E where E.RawValue == String {
        guard let v = E(rawValue: text) else { throw bad(E.allCases.map(\.rawValue).joined(separator: ", ")) }
        return v
    }

    /// The "unknown key" error of a section whose keys are `known`.
    public static func unknownKey(_ key: String, section: String, known: [String], origin: String) -> ConfigError {
        ConfigError(origin, "unknown key \"\(key)\" in [\(section)]; accepted: \(known.joined(separator: ", "))")
    }
}
