// The checks of one Assets file: its name, and its bytes as text, so the files stay real files
// that editors and parsers read, and what is served is exactly what they hold.

/// What keeps a file out, at its place: `path`, `path:line` or `path:line:column`.
struct AssetError: Error, CustomStringConvertible {
    let description: String
    init(_ place: String, _ why: String) { description = "\(place): \(why)" }
}

/// `stem.ext` → `stemEXT`: a stem of ASCII letters and digits starting with a small letter, one
/// extension of small letters and digits; any other name would need a rule to become Swift.
func assetName(_ path: String) throws(AssetError) -> String {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    let parts = file.split(separator: ".", omittingEmptySubsequences: false)
    let isLower = { (c: Character) in c.isASCII && c.isLowercase }
    let isDigit = { (c: Character) in c.isASCII && c.isNumber }
    guard parts.count == 2, let first = parts[0].first, isLower(first),
          parts[0].allSatisfy({ isLower($0) || isDigit($0) || ($0.isASCII && $0.isUppercase) }),
          !parts[1].isEmpty, parts[1].allSatisfy({ isLower($0) || isDigit($0) }) else {
        throw AssetError(path, "an asset's name is a stem and one extension of ASCII letters and digits, the stem starting with a small letter (index.html, app.css)")
    }
    return parts[0] + parts[1].uppercased()
}

/// The file's `bytes` as text: UTF-8 in lines that each end with a line feed; tabs, but no other
/// control character (a carriage return or a NUL would be served unseen) and no byte order mark.
func assetText(_ path: String, _ bytes: [UInt8]) throws(AssetError) -> String {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard bytes.last == UInt8(ascii: "\n") else {
        throw AssetError("\(path):\(lines.count)", bytes.isEmpty ? "empty" : "no line feed at the end")
    }
    var text = ""
    for (i, line) in lines.dropLast().enumerated() {
        guard let s = String(validating: line, as: UTF8.self) else { throw AssetError("\(path):\(i + 1)", "not UTF-8") }
        let scalars = s.unicodeScalars
        if let bad = scalars.firstIndex(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F || $0 == "\u{FEFF}" }) {
            let hex = String(scalars[bad].value, radix: 16, uppercase: true)
            let column = scalars.distance(from: scalars.startIndex, to: bad) + 1
            throw AssetError("\(path):\(i + 1):\(column)",
                             "U+\(String(repeating: "0", count: 4 - hex.count))\(hex) is not text an asset may hold (a control character or a byte order mark)")
        }
        text += s + "\n"
    }
    return text
}
