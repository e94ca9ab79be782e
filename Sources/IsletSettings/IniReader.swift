/// The config file's form, and nothing of its meaning: `[section]` headers, `key = value` lines,
/// `#` comments (not inside double quotes), quotes around a whole value, LF or CRLF, a UTF-8
/// byte-order mark. Every problem names its file:line. Which sections and keys exist is the
/// caller's to say (`isSection`): the core and each part know their own.
public enum IniReader {
    public enum Item: Sendable, Equatable {
        case section(name: String, origin: String)
        case entry(section: String, key: String, value: String, origin: String)
    }

    /// The file's items in order. `sections`: every section there is, in the order the docs give.
    public static func read(_ text: String, file: String, sections: [String]) throws(ConfigError) -> [Item] {
        let known = Set(sections)
        var items: [Item] = []
        var section: String?
        var seen = Set<String>()
        var lineNumber = 0
        // A UTF-8 byte-order mark (Windows editors write one) is not part of the first line.
        let body = text.unicodeScalars.first == "\u{FEFF}" ? Substring(text.unicodeScalars.dropFirst()) : Substring(text)
        // Lines end with LF or CRLF; Swift reads "\r\n" as one Character, so both are separators.
        for raw in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let origin = "\(file):\(lineNumber)"
            var line = Substring(raw)
            var quoted = false
            for i in line.indices {
                if line[i] == "\"" { quoted.toggle() }
                else if line[i] == "#", !quoted { line = line[..<i]; break }
            }
            if quoted { throw ConfigError(origin, "a quoted value has no closing \"") }
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]"), trimmed.count > 2 else {
                    throw ConfigError(origin, "a section header is a name in brackets on its own line: \(list(sections))")
                }
                let name = String(trimmed.dropFirst().dropLast()).trimmingSpaces
                guard known.contains(name) else { throw unknownSection(name, sections: sections, origin: origin) }
                section = name
                items.append(.section(name: name, origin: origin))
                continue
            }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw ConfigError(origin, "expected \"key = value\" (got \"\(trimmed)\")")
            }
            let key = String(trimmed[..<eq]).trimmingSpaces
            var value = String(trimmed[trimmed.index(after: eq)...]).trimmingSpaces
            if value.contains("\"") {
                // Quotes keep spaces and "#" in a value; they wrap the whole value or nothing.
                guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\""),
                      !value.dropFirst().dropLast().contains("\"") else {
                    throw ConfigError(origin, "\(key.isEmpty ? "the value" : key): quotes must wrap the whole value, as in \(key.isEmpty ? "key" : key) = \"a value\" (got \(value))")
                }
                value = String(value.dropFirst().dropLast())
            }
            guard let section else {
                throw ConfigError(origin, "\"\(key)\" is outside any section; put it under \(list(sections))")
            }
            guard !key.isEmpty else { throw ConfigError(origin, "missing key before \"=\"") }
            guard seen.insert("\(section).\(key)").inserted else {
                throw ConfigError(origin, "\(section).\(key) is set twice")
            }
            items.append(.entry(section: section, key: key, value: value, origin: origin))
        }
        return items
    }

    public static func unknownSection(_ name: String, sections: [String], origin: String) -> ConfigError {
        ConfigError(origin, "unknown section [\(name)]; accepted: \(sections.sorted().map { "[\($0)]" }.joined(separator: ", "))")
    }

    /// "[a], [b] or [c]".
    public static func list(_ names: [String]) -> String {
        let quoted = names.map { "[\($0)]" }
        guard quoted.count > 1, let last = quoted.last else { return quoted.joined() }
        return quoted.dropLast().joined(separator: ", ") + " or " + last
    }
}

extension StringProtocol {
    public var trimmingSpaces: String {
        let s = self.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(s.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
