// What a browser does not need of a script or a stylesheet, taken out at build time without
// moving a line: each line's indentation, and a script's lines that are only a `//` comment
// (emptied, not removed), so an error's line number in a browser is the file's.

/// `text` trimmed, or as it is when trimming could change what it means: a line ending in a
/// backslash (a string continued on the next line) or, in a script, a template literal across
/// lines (a line with an odd number of backticks).
func trimmed(_ text: String, script: Bool) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    for line in lines {
        if line.last == "\\" { return text }
        if script, line.count(where: { $0 == "`" }) % 2 == 1 { return text }
    }
    return lines.map { line -> Substring in
        let body = line.drop(while: { $0 == " " || $0 == "\t" })
        return script && body.hasPrefix("//") ? "" : body
    }.joined(separator: "\n")
}

/// A stylesheet without its `/* */` comments (their line feeds kept) and its indentation; a
/// `/*` inside a quoted string is the string's. nil when a string or a comment is left open.
func styleTrimmed(_ text: String) -> String? {
    let c = Array(text.unicodeScalars)
    var out = String.UnicodeScalarView()
    var i = 0
    while i < c.count {
        let ch = c[i]
        if ch == "\"" || ch == "'" {
            var j = i + 1
            while j < c.count, c[j] != ch, c[j] != "\n" { j += c[j] == "\\" ? 2 : 1 }
            guard j < c.count, c[j] == ch else { return nil }
            out.append(contentsOf: c[i...j])
            i = j + 1
        } else if ch == "/", i + 1 < c.count, c[i + 1] == "*" {
            var j = i + 2
            while j + 1 < c.count, !(c[j] == "*" && c[j + 1] == "/") { j += 1 }
            guard j + 1 < c.count else { return nil }
            out.append(contentsOf: c[i..<j].filter { $0 == "\n" })
            i = j + 2
        } else {
            out.append(ch)
            i += 1
        }
    }
    return trimmed(String(out), script: false)
}

/// The page without each line's indentation, where a browser shows none of it: nil (leave it as
/// it is) when it holds an element whose blanks show or are code (`pre`, `textarea`, `script`
/// or `style` with content, a comment), or when a line starts inside a quoted attribute value.
func pageTrimmed(_ text: String) -> String? {
    let lower = text.lowercased()
    for keep in ["<pre", "<textarea", "<style", "<!--", "<listing", "<xmp", "<plaintext"] where lower.contains(keep) { return nil }
    // Every <script> is empty: its src holds the code.
    for piece in lower.split(separator: "<script", omittingEmptySubsequences: false).dropFirst() {
        guard let close = piece.firstIndex(of: ">"), piece[piece.index(after: close)...].hasPrefix("</script>") else { return nil }
    }
    var inTag = false
    var quote: Character?
    for ch in text {
        if let q = quote {
            if ch == q { quote = nil } else if ch == "\n" { return nil }
        } else if inTag {
            if ch == "\"" || ch == "'" { quote = ch } else if ch == ">" { inTag = false }
        } else if ch == "<" {
            inTag = true
        }
    }
    return trimmed(text, script: false)
}
