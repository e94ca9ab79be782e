import IsletCore

/// The settings ops' fields: `settings_set` {key, value}, `settings_reset` {key},
/// `settings_export` {activities} (true: the running activities too), `settings_import` {backup}
/// (the backup file's text, at most `SettingsDocument.maximumBackupBytes`).
public struct SettingsRequest: Hashable, Sendable {
    public var key: String?
    /// The value as a config file would hold it; a JSON number is taken as its plain text.
    public var value: String?
    public var backup: String?
    /// `settings_export`: the backup holds the running activities too.
    public var activities = false
    public init(key: String? = nil, value: String? = nil, backup: String? = nil, activities: Bool = false) {
        self.key = key
        self.value = value
        self.backup = backup
        self.activities = activities
    }

    static func fields(of op: ControlOp) -> Set<String> {
        switch op {
        case .settingsSet: ["key", "value"]
        case .settingsReset: ["key"]
        case .settingsImport: ["backup"]
        case .settingsExport: ["activities"]
        default: []
        }
    }

    /// Reads the op's fields from the request object.
    static func read(_ op: ControlOp, _ o: [String: JSONValue]) throws(ProtocolError) -> SettingsRequest {
        var r = SettingsRequest()
        func text(_ k: String, limit: Int) throws(ProtocolError) -> String {
            switch o[k] {
            case nil: throw ProtocolError("missing_field", "\"\(op.rawValue)\" needs \"\(k)\"")
            // A value may be a number too: a null is a wrong type, not a missing field.
            case .null? where k == "value": throw ProtocolError("invalid_field", "\"value\" must be a string or a number, not null")
            case .null?: throw ProtocolError("missing_field", "\"\(op.rawValue)\" needs \"\(k)\"")
            case .string(let s)?:
                guard s.utf8.count <= limit else { throw ProtocolError("invalid_field", "\"\(k)\" is longer than \(limit) bytes") }
                return s
            case .number(let d)? where k == "value":
                // 1e309 parses as infinity: a number, but none a setting could hold.
                guard d.isFinite else { throw ProtocolError("invalid_field", "\"value\" is a number out of range (beyond a double's)") }
                return StrictJSON.plain(d)
            case let v? where k == "value": throw ProtocolError("invalid_field", "\"value\" must be a string or a number, not \(v.typeName)")
            case let v?: throw ProtocolError("invalid_field", "\"\(k)\" must be a string, not \(v.typeName)")
            }
        }
        switch op {
        case .settingsSet:
            r.key = try text("key", limit: 64)
            r.value = try text("value", limit: SettingsDocument.maximumValueBytes)
        case .settingsReset:
            r.key = try text("key", limit: 64)
        case .settingsImport:
            r.backup = try text("backup", limit: SettingsDocument.maximumBackupBytes)
        case .settingsExport:
            switch o["activities"] {
            case nil, .null?: break
            case .bool(let b)?: r.activities = b
            case let v?: throw ProtocolError("invalid_field", "\"activities\" must be true or false, not \(v.typeName)")
            }
        default: break
        }
        if let k = r.key, !SettingsDocument.editableKeys.contains(k) {
            throw ProtocolError("unknown_setting", "\"\(TextRule.excerpt(k, bytes: 60))\" is not a setting the page may change; accepted: \(SettingsDocument.editableKeys.joined(separator: ", "))")
        }
        return r
    }

    func encode(into o: inout [String: JSONValue]) {
        if let key { o["key"] = .string(key) }
        if let value { o["value"] = .string(value) }
        if let backup { o["backup"] = .string(backup) }
        if activities { o["activities"] = .bool(true) }
    }
}

/// One editable setting as `settings` reports it.
public struct SettingsEntry: Codable, Hashable, Sendable {
    /// `section.key`.
    public var key: String
    /// The value in force, as the file would hold it.
    public var value: String
    /// `default`, `file` or `page`.
    public var source: String
    /// What the value would be without the page's: the file's, else the default.
    public var fileValue: String
    /// What the parser accepts, in its own words.
    public var accepts: String
    /// The choices, for a key that has a fixed few.
    public var choices: [String]?

    public init(key: String, value: String, source: String, fileValue: String, accepts: String, choices: [String]?) {
        self.key = key
        self.value = value
        self.source = source
        self.fileValue = fileValue
        self.accepts = accepts
        self.choices = choices
    }

    enum CodingKeys: String, CodingKey { case key, value, source, fileValue = "file_value", accepts, choices }
}

/// The answer of every settings op: each editable key, what stays in the file, the overlay's
/// path; `settings_export` adds the backup's text.
public struct SettingsReport: Codable, Hashable, Sendable {
    public var entries: [SettingsEntry]
    public var fileOnly: [String]
    public var path: String
    /// `settings_export`: the backup file's text.
    public var backup: String?
    /// The last write of settings.json failed (its change was undone: the last saved values are in force).
    public var writeError: String?

    public init(entries: [SettingsEntry], fileOnly: [String], path: String, backup: String? = nil, writeError: String? = nil) {
        self.entries = entries
        self.fileOnly = fileOnly
        self.path = path
        self.backup = backup
        self.writeError = writeError
    }

    enum CodingKeys: String, CodingKey { case entries = "keys", fileOnly = "file_only", path, backup, writeError = "write_error" }

    public func entry(_ key: String) -> SettingsEntry? { entries.first { $0.key == key } }
}
