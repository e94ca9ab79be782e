import FoundationEssentials
import IsletCore

/// The page's settings overlay as bytes: `settings.json` in the state directory and the backup
/// a person downloads. Both are untrusted input (a file anyone with the state directory or a
/// browser's upload may have written): every bound is checked here, before any value reaches
/// the config's parser, which then checks each value as it checks the file's.
///
/// settings.json: `{"islet_settings":1,"values":{"session.minutes":"25",…}}`
/// a backup:      `{"islet_backup":1,"settings":{"session.minutes":"25",…}}`
/// with the running activities (version 2): `{"islet_backup":2,"settings":{…},"activities":[…]}`,
/// each activity in the state file's own encoding (IsletStore's codec reads and checks them).
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
    /// The schema of settings.json this build writes and reads; a newer one is refused, named.
    public static let schema = 1
    /// A backup's versions: 1 holds settings alone (what an earlier Islet reads), 2 also the
    /// running activities. A backup is written in the lowest version that holds it.
    public static let backupSchema = 2
    /// The largest settings.json read: ten keys of at most 256 bytes fit in 4 KiB.
    public static let maximumBytes = 8 * 1024
    /// The largest backup read: what one request line (and the page's POST body) carries, 16 KiB.
    /// The largest legal backup (16 activities at every bound) is far larger; an export whose
    /// restore would not fit is refused (`restoreRequestBytes`), so no backup made is unrestorable.
    public static let maximumBackupBytes = ControlRequest.maximumLineBytes

    /// A backup read: its settings and, when it has them, its activities (a JSON array still
    /// to be decoded and checked by the state file's loader).
    public struct Backup: Equatable, Sendable {
        public var settings: [String: String]
        public var activities: JSONValue?
        public init(settings: [String: String], activities: JSONValue? = nil) {
            self.settings = settings
            self.activities = activities
        }
    }
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

    /// A backup's settings alone (its activities are not looked at).
    public static func backup(_ bytes: [UInt8]) throws(Problem) -> [String: String] {
        try readBackup(bytes).settings
    }

    /// A backup's settings and activities. Only the envelope of the activities is checked here
    /// (an array of at most `ActivityBook.maximumActivities`); each activity is the loader's.
    /// `limit` is for measuring (tests); every reader keeps the default.
    public static func readBackup(_ bytes: [UInt8], limit: Int = maximumBackupBytes) throws(Problem) -> Backup {
        let (settings, o, version) = try read(bytes, versionKey: "islet_backup", valuesKey: "settings", what: "the backup",
                                              newest: backupSchema, extra: ["activities"], limit: limit)
        guard let list = o["activities"] else { return Backup(settings: settings) }
        guard version >= 2 else { throw Problem("the backup is version \(version), which holds no activities; a backup with activities is version 2") }
        guard case .array(let items) = list else { throw Problem("the backup's \"activities\" must be an array, not \(list.typeName)") }
        guard items.count <= ActivityBook.maximumActivities else {
            throw Problem("the backup holds \(items.count) activities; at most \(ActivityBook.maximumActivities) run at once")
        }
        return Backup(settings: settings, activities: list)
    }

    public static func encodeOverlay(_ values: [String: String]) -> [UInt8] {
        encode(["islet_settings": .number(Double(schema)), "values": .object(values.mapValues(JSONValue.string))])
    }

    /// A backup; `activities` (the state file's encoding of the list, a JSON array) makes it version 2.
    public static func encodeBackup(_ values: [String: String], activities: JSONValue? = nil) -> [UInt8] {
        var o: [String: JSONValue] = ["islet_backup": .number(activities == nil ? 1 : 2), "settings": .object(values.mapValues(JSONValue.string))]
        if let activities { o["activities"] = activities }
        return encode(o)
    }

    /// The bytes of the request that restores `backup` (`settings_import`): what must fit a
    /// request line and the page's POST body for the backup to be restorable.
    public static func restoreRequestBytes(_ backup: [UInt8]) -> Int {
        var r = ControlRequest(op: .settingsImport)
        r.settings.backup = String(decoding: backup, as: UTF8.self)
        return r.encodedLine().count
    }

    private static func encode(_ o: [String: JSONValue]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return ((try? encoder.encode(JSONValue.object(o))).map(Array.init) ?? Array("{}".utf8)) + [10]
    }

    private static func read(_ bytes: [UInt8], versionKey: String, valuesKey: String, what: String) throws(Problem) -> [String: String] {
        try read(bytes, versionKey: versionKey, valuesKey: valuesKey, what: what, newest: schema, extra: [], limit: maximumBytes).0
    }

    private static func read(_ bytes: [UInt8], versionKey: String, valuesKey: String, what: String, newest: Int,
                             extra: [String], limit: Int) throws(Problem) -> ([String: String], [String: JSONValue], Int) {
        guard bytes.count <= limit else {
            throw Problem("\(what) is \(bytes.count) bytes; at most \(limit) are read")
        }
        let value: JSONValue
        do { value = try StrictJSON.parse(bytes) }
        catch { throw Problem("\(what) is not valid JSON: \(error)") }
        guard case .object(let o) = value else { throw Problem("\(what) must be a JSON object, not \(value.typeName)") }
        let accepted = [versionKey, valuesKey] + extra
        for k in o.keys.sorted() where !accepted.contains(k) {
            throw Problem("\(what) has an unknown field \"\(TextRule.excerpt(k, bytes: 40))\"; accepted: \(accepted.joined(separator: ", "))")
        }
        if let found = o[versionKey], case .number = found {} else if let found = o[versionKey] {
            throw Problem("\(what)'s \"\(versionKey)\" must be a whole number from 1, not \(found.typeName)")
        }
        guard case .number(let v)? = o[versionKey] else {
            throw Problem("\(what) has no \"\(versionKey)\" version number; is it an Islet \(what == "settings.json" ? "settings file" : "backup")?")
        }
        guard v == v.rounded(), v >= 1, v < 1e6 else { throw Problem("\(what)'s \"\(versionKey)\" must be a whole number from 1") }
        guard Int(v) <= newest else {
            throw Problem("\(what) is version \(Int(v)), made by a newer Islet; this one reads version\(newest == 1 ? "" : "s 1 to") \(newest)")
        }
        guard let inner = o[valuesKey] else { return ([:], o, Int(v)) }
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
        return (out, o, Int(v))
    }
}
