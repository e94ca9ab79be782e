// What a browser does not need of a script, taken out by a small tokenizer that knows strings,
// regular expressions and comments: every comment and the blanks between tokens, but never a
// line feed (automatic semicolons stay where they were, and an error's line number in a browser
// is the file's). What it cannot read for certain leaves the script to `trimmed`'s plain rule.

/// `text` without comments or blanks a token does not need; nil when it holds what this reader
/// does not follow for certain: a template literal, a string or regular expression left open at
/// a line's end (a continued line), or a comment left open.
func squeezed(_ text: String) -> String? {
    let c = Array(text.unicodeScalars)
    var out = String.UnicodeScalarView()
    var i = 0
    var pendingBlank = false
    // Whether a `/` here starts a regular expression: not after an operand (a name, a number,
    // a closing bracket), but after an operator, an opening bracket or a keyword like `return`.
    var operandBefore = false
    var lastWord = ""
    func emit(_ s: some Sequence<Unicode.Scalar>) {
        var it = s.makeIterator()
        guard let first = it.next() else { return }
        if pendingBlank, let last = out.last, needsBlank(last, first) { out.append(" ") }
        pendingBlank = false
        out.append(first)
        while let n = it.next() { out.append(n) }
    }
    while i < c.count {
        let ch = c[i]
        let next: Unicode.Scalar? = i + 1 < c.count ? c[i + 1] : nil
        switch ch {
        case "\n":
            while out.last == " " { out.removeLast() }
            out.append("\n")
            pendingBlank = false
            i += 1
        case " ", "\t":
            pendingBlank = true
            i += 1
        case "/" where next == "/":
            while i < c.count, c[i] != "\n" { i += 1 }
        case "/" where next == "*":
            var j = i + 2
            while j + 1 < c.count, !(c[j] == "*" && c[j + 1] == "/") { j += 1 }
            guard j + 1 < c.count else { return nil }
            // A comment is a blank, and its line feeds stay.
            let feeds = c[i..<j].filter { $0 == "\n" }.count
            if feeds > 0 {
                while out.last == " " { out.removeLast() }
                out.append(contentsOf: String(repeating: "\n", count: feeds).unicodeScalars)
                pendingBlank = false
            } else {
                pendingBlank = true
            }
            i = j + 2
        case "`":
            return nil
        case "\"", "'":
            var j = i + 1
            while j < c.count, c[j] != ch {
                if c[j] == "\n" { return nil }
                j += c[j] == "\\" ? 2 : 1
            }
            guard j < c.count else { return nil }
            emit(c[i...j])
            operandBefore = true
            lastWord = ""
            i = j + 1
        case "/" where !operandBefore || regexKeywords.contains(lastWord):
            var j = i + 1
            var inClass = false
            while j < c.count, inClass || c[j] != "/" {
                if c[j] == "\n" { return nil }
                if c[j] == "[" { inClass = true } else if c[j] == "]" { inClass = false }
                j += c[j] == "\\" ? 2 : 1
            }
            guard j < c.count else { return nil }
            j += 1
            while j < c.count, isWordScalar(c[j]) { j += 1 }
            emit(c[i..<j])
            operandBefore = true
            lastWord = ""
            i = j
        default:
            if isWordScalar(ch) {
                var j = i
                while j < c.count, isWordScalar(c[j]) || (c[j] == "." && isDigit(c[i])) { j += 1 }
                let word = c[i..<j]
                emit(word)
                lastWord = String(String.UnicodeScalarView(word))
                operandBefore = true
                i = j
            } else {
                emit([ch])
                operandBefore = ch == ")" || ch == "]" || ch == "}"
                lastWord = ""
                i += 1
            }
        }
    }
    return String(out)
}

/// Keywords after which a `/` starts a regular expression, though a name stands before it.
private let regexKeywords: Set<String> = ["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void",
                                          "throw", "instanceof", "yield", "await"]

private func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 0x30 && s.value <= 0x39 }

/// A scalar of a name or a number: ASCII letters and digits, `_`, `$`, and anything not ASCII.
private func isWordScalar(_ s: Unicode.Scalar) -> Bool {
    let v = s.value
    return (v >= 0x61 && v <= 0x7A) || (v >= 0x41 && v <= 0x5A) || (v >= 0x30 && v <= 0x39) || v == 0x5F || v == 0x24 || v > 0x7F
}

/// Whether dropping the blank between `a` and `b` would join two tokens into another: two names
/// or numbers, `+ +`, `- -`, `/ /` (a comment), `< !` (`<!--`, an old comment in scripts),
/// `- >` (`-->`), a number then `.`.
private func needsBlank(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
    if isWordScalar(a) && (isWordScalar(b) || b == ".") { return true }
    switch (a, b) {
    case ("+", "+"), ("-", "-"), ("/", "/"), ("/", "*"), ("<", "!"), ("-", ">"), ("+", "."), ("-", "."), (".", "."): return true
    default: return false
    }
}
