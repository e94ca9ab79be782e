// words.js split by language at build time (docs/WEB.md "Delivery"): people edit one file with
// every language of a key on its line; a browser gets English in the page's script and one
// small file for the language it shows, not the words of seven languages on every load.

/// words.js as served: `base`, the file with English only in each key (same lines, so an error's
/// line is the source's) and the address of each other language's file after `langs`; `others`,
/// one script per other language that hands its words to `ISLET_WORDS.add`.
struct SplitWords {
    let base: String
    let others: [(lang: String, address: String, text: String)]
    /// Each claimed key's English, in words.js's order (the keys `shown` gives are not here).
    var claimed: [(key: String, english: String)] = []

    /// The script that hands the English of the keys starting with `prefix` to the page's words,
    /// for a line of served.txt that serves `words.js:PREFIX` (the script that uses them, loaded
    /// later, carries them).
    func english(_ prefix: String) -> String {
        let mine = claimed.filter { $0.key.hasPrefix(prefix) }
        return "ISLET_WORDS.add(\"en\", {\n" + mine.map { "\($0.key): \"\($0.english)\"" }.joined(separator: ",\n") + "\n});\n"
    }
}

/// `text` (words.js) split for `pattern` (served.txt's address with one `*`, `/words-*.js`): the
/// `*` becomes each language's tag in small letters. words.js holds a line `langs: ["en", ...],`
/// (English first, the fallback) and a block `t: {` … `}` of lines `key: "en|es|...",`, each
/// with one part per language (split on `|`, which no word holds). Anything else in that block,
/// or a key with another count of parts, stops the build at its line.
///
/// A key whose English `shown` holds (the page's own element says it, `shownWords`) leaves an
/// empty line in `base`: the script reads it from the element (behaviour.js, `harvest`), so a
/// first load does not carry those words twice. A key starting with one of `claimed` (served.txt's
/// `words.js:PREFIX`) leaves an empty line too: its English goes with the script that uses it.
func splitWords(_ text: String, pattern: String, file: String, shown: [String: String] = [:], claimed: [String] = []) throws(AssetError) -> SplitWords {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let langsAt = lines.firstIndex(where: { $0.hasPrefix("langs: [") }) else { throw AssetError(file, "no line `langs: [\"en\", ...],`") }
    let langs = quotedStrings(lines[langsAt])
    guard langs.first == "en", langs.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { isTagByte($0) } }), Set(langs).count == langs.count else {
        throw AssetError("\(file):\(langsAt + 1)", "langs lists distinct tags of ASCII letters, digits and '-', English (\"en\") first")
    }
    guard let open = lines.firstIndex(where: { $0 == "t: {" }), let close = lines[(open + 1)...].firstIndex(where: { $0 == "}" }) else {
        throw AssetError(file, "no block `t: {` … `}` (its lines unindented)")
    }
    let addresses = langs.dropFirst().map { pattern.replacing("*", with: $0.lowercased()) }
    var base = lines
    var parts: [[String]] = Array(repeating: [], count: langs.count - 1)
    var keys: [String] = []
    var english: [(key: String, english: String)] = []
    for i in (open + 1)..<close {
        let line = lines[i]
        guard let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" \""),
              line[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }), !line[..<colon].isEmpty,
              let body = literalBody(String(line[line.index(colon, offsetBy: 2)...])) else {
            throw AssetError("\(file):\(i + 1)", "a key's line is `key: \"en|...\",` (one string on one line)")
        }
        let words = body.value.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard words.count == langs.count else {
            throw AssetError("\(file):\(i + 1)", "\(line[..<colon]) has \(words.count) parts, not one per language (\(langs.count))")
        }
        guard !words.contains("") else { throw AssetError("\(file):\(i + 1)", "\(line[..<colon]) has an empty part (every language has its words)") }
        let key = String(line[..<colon])
        keys.append(key)
        let isShown = shown[key] == words[0], isClaimed = claimed.contains { key.hasPrefix($0) }
        if isClaimed, !isShown { english.append((key, words[0])) }
        base[i] = isShown || isClaimed ? "" : "\(key): \"\(words[0])\"\(body.comma ? "," : "")"
        for j in 1..<langs.count { parts[j - 1].append(words[j]) }
    }
    let map = zip(langs.dropFirst(), addresses).map { "\"\($0)\": \"\($1)\"" }.joined(separator: ", ")
    base[langsAt] += " files: {\(map)},"
    let others = langs.dropFirst().enumerated().map { j, lang in
        var out = "ISLET_WORDS.add(\"\(lang)\", {\n"
        out += zip(keys, parts[j]).map { "\($0): \"\($1)\"" }.joined(separator: ",\n")
        return (lang: lang, address: addresses[j], text: out + "\n});\n")
    }
    return SplitWords(base: base.joined(separator: "\n"), others: others, claimed: english)
}

/// The English the page's HTML gives each `data-w` key, where the browser reads it back exactly:
/// an element `<tag … data-w="key" …>TEXT</` whose TEXT has no entity, no markup and no blank at
/// either end. A key whose elements say different things, or any other shape, is left out (its
/// words then stay in the script).
func shownWords(_ html: String) -> [String: String] {
    var found: [String: String] = [:]
    var conflicting: Set<String> = []
    var rest = Substring(html)
    while let at = rest.firstRange(of: " data-w=\"") {
        rest = rest[at.upperBound...]
        guard let q = rest.firstIndex(of: "\"") else { break }
        let key = String(rest[..<q])
        rest = rest[rest.index(after: q)...]
        guard let close = rest.firstIndex(of: ">"), !rest[..<close].contains("<") else { continue }
        let after = rest[rest.index(after: close)...]
        guard let end = after.firstIndex(of: "<"), after[end...].hasPrefix("</") else { conflicting.insert(key); continue }
        let text = String(after[..<end])
        let plain = !text.isEmpty && !text.contains("&") && !text.contains("\n") && text.first != " " && text.last != " "
        if !plain || (found[key] != nil && found[key] != text) { conflicting.insert(key); continue }
        found[key] = text
    }
    for k in conflicting { found[k] = nil }
    return found
}

/// `"…"` then an optional `,` and nothing else: the text between the quotes (no `"` or `\` in it,
/// so no escape to get wrong), nil otherwise.
private func literalBody(_ s: String) -> (value: String, comma: Bool)? {
    guard s.first == "\"" else { return nil }
    let rest = s.dropFirst()
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    let value = rest[..<end], tail = rest[rest.index(after: end)...]
    guard tail == "" || tail == ",", !value.contains("\\") else { return nil }
    return (String(value), tail == ",")
}

/// The double-quoted strings of a line, as written.
private func quotedStrings(_ line: String) -> [String] {
    line.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
}

private func isTagByte(_ b: UInt8) -> Bool {
    (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D
}
