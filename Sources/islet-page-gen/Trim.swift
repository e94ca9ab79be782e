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
