import FoundationEssentials
import IsletCore

/// The page's settings overlay as bytes: `settings.json` in the state directory and the backup
/// a person downloads. Both are untrusted input (a file anyone with the state directory or a
/// browser's upload may have written): every bound is checked here, before any value reaches
/// the config's parser, which then checks each value as it checks the file's.
///
/// settings.json: `{"islet_settings":1,"values":{"session.minutes":"25",…}}`
/// a backup:      `{"islet_backup":1,"settings":{"session.minutes":"25",…}}`
/// Values are the text a config file would hold for the key (`25`, `22:30-07:00`, `dark`).
public enum SettingsDocument {
    /// The keys the page may change, as `section.key`, in the order the view shows them. The
    /// bus, GPIO lines, listen address and secrets are not among them: they stay in the file.
    public static let editableKeys = [
        "session.minutes", "session.cycles", "session.kind", "session.language",
        "session.stale_after_seconds", "session.relevance",
        "display.contrast", "display.night", "display.night_contrast", "display.night_idle",
    ]
    /// What the view names as the file's alone (never written by the page).
    public static let fileOnly = [
        "display.bus", "display.address", "display.controller", "display.size", "[buttons] and [chime] GPIO lines",
        "daemon.socket", "daemon.state_dir", "web.listen", "web.password_file", "mqtt (broker and secrets)",
    ]
    /// The schema this build writes and reads; a newer one is refused, named.
    public static let schema = 1
    /// The largest settings.json or backup read: ten keys of at most 256 bytes fit in 4 KiB.
    public static let maximumBytes = 8 * 1024
    public static let maximumValueBytes = 256

    /// A problem with a document, for people: what is wrong and where.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// settings.json's values; a file without any is an empty overlay.
    public static func overlay(_ bytes: [UInt8]) throws(Problem) -> [String: String] {
        try read(bytes, versionKey: "islet_settings", valuesKey: "values", what: "settings.json")
    }

    /// A backup's settings; `activities` is not read by this version and is refused.
    public static func backup(_ bytes: [UInt8]) throws(Problem) -> [String: String] {
        try read(bytes, versionKey: "islet_backup", valuesKey: "settings", what: "the backup")
    }

    public static func encodeOverlay(_ values: [String: String]) -> [UInt8] {
        encode(["islet_settings": .number(Double(schema)), "values": .object(values.mapValues(JSONValue.string))])
    }

    public static func encodeBackup(_ values: [String: String]) -> [UInt8] {
        encode(["islet_backup": .number(Double(schema)), "settings": .object(values.mapValues(JSONValue.string))])
    }

    private static func encode(_ o: [String: JSONValue]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return ((try? encoder.encode(JSONValue.object(o))).map(Array.init) ?? Array("{}".utf8)) + [10]
    }

    private static func read(_ bytes: [UInt8], versionKey: String, valuesKey: String, what: String) throws(Problem) -> [String: String] {
        guard bytes.count <= maximumBytes else {
            throw Problem("\(what) is \(bytes.count) bytes; at most \(maximumBytes) are read")
        }
        let value: JSONValue
        do { value = try StrictJSON.parse(bytes) }
        catch { throw Problem("\(what) is not valid JSON: \(error)") }
        guard case .object(let o) = value else { throw Problem("\(what) must be a JSON object, not \(value.typeName)") }
        for k in o.keys.sorted() where k != versionKey && k != valuesKey {
            throw Problem("\(what) has an unknown field \"\(TextRule.excerpt(k, bytes: 40))\"; accepted: \(versionKey), \(valuesKey)")
        }
        guard case .number(let v)? = o[versionKey] else {
            throw Problem("\(what) has no \"\(versionKey)\" version number; is it an Islet \(what == "settings.json" ? "settings file" : "backup")?")
        }
        guard v == v.rounded(), v >= 1, v < 1e6 else { throw Problem("\(what)'s \"\(versionKey)\" must be a whole number from 1") }
        guard Int(v) <= schema else {
            throw Problem("\(what) is version \(Int(v)), made by a newer Islet; this one reads version \(schema)")
        }
        guard let inner = o[valuesKey] else { return [:] }
        guard case .object(let values) = inner else { throw Problem("\(what)'s \"\(valuesKey)\" must be an object, not \(inner.typeName)") }
        guard values.count <= editableKeys.count else {
            throw Problem("\(what) holds \(values.count) settings; at most \(editableKeys.count) can be set on the page")
        }
        var out: [String: String] = [:]
        for (k, v) in values.sorted(by: { $0.key < $1.key }) {
            guard editableKeys.contains(k) else {
                throw Problem("\(what): \"\(TextRule.excerpt(k, bytes: 60))\" is not a setting the page may change; accepted: \(editableKeys.joined(separator: ", "))")
            }
            guard case .string(let s) = v else { throw Problem("\(what): \(k) must be a string, not \(v.typeName)") }
            guard s.utf8.count <= maximumValueBytes else { throw Problem("\(what): \(k) is longer than \(maximumValueBytes) bytes") }
            guard !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw Problem("\(what): \(k) holds a control character")
            }
            out[k] = s
        }
        return out
    }
}
