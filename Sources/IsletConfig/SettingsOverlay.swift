import IsletSettings
import IsletProtocol

/// The page's settings over the file's (docs/WEB.md "Settings"): applied by the file's own
/// parser, key by key (`set`), and checked together as the file is (`validated`), so a value
/// the file would refuse is refused with the same message.
extension DaemonConfig {
    /// The origin of a page value, in `origins` and in a refusal.
    public static let pageOrigin = "settings.json"

    /// This config (the file's and the flags') with the page's values over it.
    public func applying(page values: [String: String]) throws(ConfigError) -> DaemonConfig {
        var c = self
        for name in SettingsDocument.editableKeys {
            guard let text = values[name] else { continue }
            let (section, key) = Self.split(name)
            try c.set(section: section, key: key, value: text, origin: Self.pageOrigin)
        }
        // The checks of keys together, for what the page can touch: the file's own (its secrets
        // and certificates on disk above all) were checked when it was read, and reading them
        // again at each edit would make an edit fail for a file it does not name.
        _ = try c.panelModel(origin: Self.pageOrigin)
        for part in c.parts.present {
            let t = type(of: part)
            guard t.keys.contains(where: { values["\(t.section).\($0)"] != nil }) else { continue }
            try part.validate(c.parts) { key in c.origins[key] ?? Self.pageOrigin }
        }
        return c
    }

    /// Whether the page may set `name` to `text` on top of this config: nil, or the parser's
    /// own message (without the origin, which is the page's, not a file's line).
    public func refusal(setting name: String, to text: String, page values: [String: String]) -> String? {
        var next = values
        next[name] = text
        do { _ = try applying(page: next) } catch { return error.message }
        return nil
    }

    /// Every editable key of the config in force (`self`, the page's values over `file`).
    public func settingsEntries(file: DaemonConfig) -> [SettingsEntry] {
        SettingsDocument.editableKeys.map { name in
            let source = origins[name] == Self.pageOrigin ? "page" : file.texts[name] != nil ? "file" : "default"
            return SettingsEntry(key: name, value: Self.shown(name, texts[name]) ?? defaultText(name), source: source,
                                 fileValue: Self.shown(name, file.texts[name]) ?? file.defaultText(name),
                                 accepts: accepts(name), choices: Self.choices[name])
        }
    }

    /// A value as the list shows it: an empty night is the parser's `off`, said so (not a blank).
    static func shown(_ name: String, _ text: String?) -> String? {
        name == "display.night" && text?.isEmpty == true ? "off" : text
    }

    static let choices: [String: [String]] = ["session.kind": ["countdown", "stopwatch"], "display.night_idle": ["dark", "on"]]

    /// A key's value when neither the file nor the page sets it, as the file would write it.
    public func defaultText(_ name: String) -> String {
        let d = SessionDefaults()
        switch name {
        case "session.minutes": return Self.plain(d.minutes)
        case "session.cycles": return "\(d.cycles)"
        case "session.kind": return d.stopwatch ? "stopwatch" : "countdown"
        case "session.language": return d.language
        case "session.stale_after_seconds": return d.staleAfterSeconds.map(Self.plain) ?? "off"
        case "session.relevance": return Self.plain(d.relevance)
        // The module's own 81h value, from the controller table.
        case "display.contrast": return (try? panelModel(origin: "display")).map { "\($0.contrast)" } ?? "127"
        // Night mode's defaults (NightSettings; a test holds the two together).
        case "display.night": return "off"
        case "display.night_contrast": return "0"
        case "display.night_idle": return "dark"
        default: return ""
        }
    }

    /// What the parser accepts for a key, in its own words: the refusal of a value no key takes.
    func accepts(_ name: String) -> String {
        var c = self
        let (section, key) = Self.split(name)
        do { try c.set(section: section, key: key, value: "?", origin: Self.pageOrigin) } catch {
            // No Foundation here: the message's tail after its one "accepted: ".
            let parts = error.message.split(separator: "accepted: ", maxSplits: 1, omittingEmptySubsequences: false)
            return String(parts.last ?? Substring(error.message))
        }
        return ""
    }

    static func split(_ name: String) -> (String, String) {
        let dot = name.firstIndex(of: ".") ?? name.endIndex
        let rest = dot < name.endIndex ? name.index(after: dot) : dot
        return (String(name[..<dot]), String(name[rest...]))
    }
}
