/// The words the pill shows, per language. The tables are the translator-editable files in
/// Sources/IsletRender/Localization, compiled into the binary at build time.
public enum Localization {
    public enum Key: String, Sendable, CaseIterable {
        case cycle
        case cycleOpen = "cycle_open"
        case running
        case paused
        case cycleComplete = "cycle_complete"
        case complete
        case stopwatch
        case meditation
    }

    /// The languages shipped, English first (it is the fallback).
    public static let languages: [String] = ["en", "pt", "es", "ja", "zh-Hans", "ar", "he"]

    /// Language → key → text, straight from the data files (no fallback applied).
    public static let tables: [String: [String: String]] = {
        var t: [String: [String: String]] = [:]
        for (language, entries) in GeneratedStrings.tables {
            var d: [String: String] = [:]
            for e in entries { d[e.key] = e.text }
            t[language] = d
        }
        return t
    }()

    /// The table language for an activity's code: exact, then case-insensitive, then the part
    /// before `-`/`_` (`pt-BR` → `pt`, `zh-CN` → `zh-Hans`); English when nothing matches.
    public static func resolve(_ code: String) -> String {
        if tables[code] != nil { return code }
        let lower = code.lowercased()
        for l in languages where l.lowercased() == lower { return l }
        let base = lower.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? lower
        if base == "zh" { return "zh-Hans" }
        if base == "iw" { return "he" }
        for l in languages where l.lowercased() == base { return l }
        return "en"
    }

    /// Whether the language is written right to left (its labels are right-aligned).
    public static func isRightToLeft(_ language: String) -> Bool {
        let l = resolve(language)
        return l == "ar" || l == "he"
    }

    /// The text for `key` in `language`, falling back to English.
    public static func string(_ key: Key, language: String) -> String {
        let l = resolve(language)
        return tables[l]?[key.rawValue] ?? tables["en"]?[key.rawValue] ?? key.rawValue
    }

    /// "Cycle 2 of 3" (or "Cycle 2" when open-ended) in `language`. Numbers are ASCII digits.
    public static func cycleLabel(cycle: Int, of cycles: Int?, language: String) -> String {
        if let n = cycles {
            return fill(string(.cycle, language: language), ["cycle": String(cycle), "cycles": String(n)])
        }
        return fill(string(.cycleOpen, language: language), ["cycle": String(cycle)])
    }

    /// The template with each `{name}` of `values` replaced; any other brace is kept as is.
    /// (Plain string scanning: the daemon links no regex engine.)
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let v = values[String(after[..<close])] {
                out += v
                rest = after[after.index(after: close)...]
            } else {
                out += "{"
                rest = after
            }
        }
        return out + rest
    }
}
