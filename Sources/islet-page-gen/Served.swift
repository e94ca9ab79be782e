// served.txt and what it makes: which address joins which files, cached how, under which name.
import IsletFrame

/// One file's bytes and where they came from (for messages); `drawn`: an icon this tool drew,
/// which no line has to serve.
struct PageSource {
    let path: String
    let bytes: [UInt8]
    var drawn = false
}

/// One line of served.txt: `ADDRESS CACHE FILE...`, the files joined in that order.
/// `immutable`: served under a name carrying its content's hash, cached for good; the plain
/// address answers too, revalidated (a page open during an upgrade asks for it).
/// `revalidate`: served at its address only, revalidated on every use (ETag).
struct ServedLine: Equatable {
    let address: String
    let immutable: Bool
    let files: [String]
    let line: Int

    static func parse(_ text: String, file: String) throws(AssetError) -> [ServedLine] {
        var lines: [ServedLine] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            let place = "\(file):\(i + 1)"
            guard words.count >= 3 else { throw AssetError(place, "expected `ADDRESS immutable|revalidate FILE...`") }
            let address = words[0]
            guard address.hasPrefix("/"), address.utf8.count <= 100,
                  address.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2F || $0 == 0x2A }),
                  !address.hasPrefix("/api/") else {
                throw AssetError(place, "an address starts with / and holds small ASCII letters, digits, '.', '-' and '/' only, outside /api/")
            }
            let immutable: Bool
            switch words[1] {
            case "immutable": immutable = true
            case "revalidate": immutable = false
            default: throw AssetError(place, "the cache is `immutable` or `revalidate`, not \(words[1])")
            }
            if immutable, extensionOf(address) == nil { throw AssetError(place, "an immutable address needs an extension (its hash goes before it)") }
            if address.contains("*"), !immutable || address.count(where: { $0 == "*" }) != 1 || words.count != 3 || words[2] != "words.js" {
                throw AssetError(place, "a `*` (one per language) is for one immutable line serving words.js alone")
            }
            if lines.contains(where: { $0.address == address }) { throw AssetError(place, "\(address) is served twice") }
            for claim in words.dropFirst(2) where claim.contains(":") {
                let parts = claim.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0] == "words.js", !parts[1].isEmpty,
                      parts[1].utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }),
                      extensionOf(address) == "js" else {
                    throw AssetError(place, "`\(claim)`: a claim is `words.js:PREFIX` (small letters, digits, '_'), in a script's line")
                }
            }
            lines.append(ServedLine(address: address, immutable: immutable, files: Array(words.dropFirst(2)), line: i + 1))
        }
        return lines
    }
}

/// "/app.css" → "css"; nil without one.
func extensionOf(_ address: String) -> String? {
    guard let last = address.split(separator: "/").last, let dot = last.lastIndex(of: "."), dot != last.startIndex else { return nil }
    let ext = last[last.index(after: dot)...]
    return ext.isEmpty ? nil : String(ext)
}

/// The Content-Type of an extension, and whether it is text (checked, rewritten, compressed).
func contentType(_ ext: String) -> (type: String, text: Bool)? {
    switch ext {
    case "html": ("text/html; charset=utf-8", true)
    case "css": ("text/css; charset=utf-8", true)
    case "js": ("text/javascript; charset=utf-8", true)
    case "webmanifest": ("application/manifest+json", true)
    case "png": ("image/png", false)
    case "ico": ("image/x-icon", false)
    default: nil
    }
}

/// FNV-1a, 64 bits: a content hash for cache names (not a defence: the bytes are our own).
func contentHash(_ bytes: [UInt8]) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
    let hex = String(h, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
}

/// One address as served.
struct MadeAsset {
    let address: String
    let path: String
    let type: String
    let immutable: Bool
    let hash: String
    let text: String?
    let binary: [UInt8]
    let gzip: [UInt8]?
}

/// Makes every line of `served`: immutable ones first (in order), then the others, so a text
/// file's `"ADDRESS"` (with its quotes) of an immutable asset made before it becomes that
/// asset's hashed name. Every source must be served; a missing one stops the build.
func makePage(_ served: [ServedLine], sources: [String: PageSource], servedFile: String,
              compress: ([UInt8]) -> [UInt8]?) throws(AssetError) -> [MadeAsset] {
    var made: [MadeAsset] = []
    var used: Set<String> = []
    // A `*` line: words.js split by language, made first (so the script names their hashed
    // files); its other uses get English only (Words.swift).
    var split: [(line: ServedLine, address: String, given: String?)] = []
    var jobs: [(line: ServedLine, address: String, given: String?)] = []
    var replaced: [String: String] = [:]
    for line in served.filter(\.immutable) + served.filter({ !$0.immutable }) {
        guard line.address.contains("*") else { jobs.append((line, line.address, nil)); continue }
        let name = line.files[0]
        guard let source = sources[name] else { throw AssetError("\(servedFile):\(line.line)", "no file \(name) in Assets") }
        used.insert(name)
        // What the page's markup says, and the markup a script brings (settings.js's card), which
        // that script reads back when it puts it in place.
        var markup = ""
        for (name, s) in sources.sorted(by: { $0.key < $1.key }) where name == "index.html" || (name.hasSuffix(".js") && name != line.files[0]) {
            markup += try assetText(s.path, s.bytes) + "\n"
        }
        let claims = served.flatMap(\.files).filter { $0.hasPrefix(name + ":") }.map { String($0.dropFirst(name.count + 1)) }
        let words = try splitWords(try assetText(source.path, source.bytes), pattern: line.address, file: source.path,
                                   shown: shownWords(markup), claimed: claims)
        replaced[name] = words.base
        for c in claims { replaced[name + ":" + c] = words.english(c) }
        split += words.others.map { (line, $0.address, asServed($0.text, ext: "js")) }
    }
    for (line, address, given) in split + jobs {
        let place = "\(servedFile):\(line.line)"
        let ext = extensionOf(address) ?? extensionOf(line.files[0]) ?? ""
        guard let kind = contentType(ext) else { throw AssetError(place, "no content type for .\(ext) (html, css, js, webmanifest, png, ico)") }
        var bytes: [UInt8] = []
        var text: String? = given
        for name in line.files where given == nil {
            if let claimed = replaced[name], name.contains(":") {   // words.js:PREFIX, made above
                text = (text ?? "") + asServed(claimed, ext: ext)
                continue
            }
            guard let source = sources[name] else { throw AssetError(place, "no file \(name) in Assets, nor an icon islet-page-gen draws") }
            used.insert(name)
            if kind.text {
                let checked: String
                if let base = replaced[name] { checked = base } else { checked = try assetText(source.path, source.bytes) }
                text = (text ?? "") + asServed(checked, ext: ext)
            } else {
                guard line.files.count == 1 else { throw AssetError(place, "a binary file is served alone") }
                bytes = source.bytes
            }
        }
        if var t = text {
            for m in made where m.immutable { t = t.replacing("\"\(m.address)\"", with: "\"\(m.path)\"") }
            text = t
            bytes = Array(t.utf8)
        }
        let hash = contentHash(bytes)
        var path = address
        if line.immutable, let e = extensionOf(path) { path = String(path.dropLast(e.count + 1)) + "." + hash.prefix(12) + "." + e }
        let packed = kind.text ? compress(bytes).flatMap { $0.count < bytes.count ? $0 : nil } : nil
        made.append(MadeAsset(address: address, path: path, type: kind.type, immutable: line.immutable, hash: hash,
                              text: text, binary: kind.text ? [] : bytes, gzip: packed))
    }
    if let unused = sources.filter({ !used.contains($0.key) && !$0.value.drawn }).keys.sorted().first {
        throw AssetError(servedFile, "Assets/\(unused) is served by no line (add it to a line, or remove it)")
    }
    return made.sorted { $0.address < $1.address }
}

/// A text file as served: a script squeezed (else trimmed), a stylesheet without comments or
/// indentation, the page without indentation; no line moved in any (Squeeze.swift, Trim.swift).
func asServed(_ text: String, ext: String) -> String {
    switch ext {
    case "js": squeezed(text) ?? trimmed(text, script: true)
    case "css": styleTrimmed(text) ?? trimmed(text, script: false)
    case "html": pageTrimmed(text) ?? text
    default: text
    }
}

/// The Swift of `PageAssets.embedded`: text as a string literal, bytes in base64.
func embeddedSource(_ page: [MadeAsset]) -> String {
    var out = "// Generated by islet-page-gen from Sources/IsletWeb/Assets (served.txt). Do not edit.\n"
    out += "extension PageAssets {\n    static let embedded: [Embedded] = [\n"
    for a in page {
        let q = { (s: String) in Quoted.literal(s, .swift) }
        out += "        Embedded(address: \(q(a.address)), path: \(q(a.path)), type: \(q(a.type)), immutable: \(a.immutable), hash: \(q(a.hash)),\n"
        out += "                 text: \(a.text.map(q) ?? "nil"),\n"
        out += "                 base64: \(q(base64(a.binary))),\n"
        out += "                 gzip64: \(a.gzip.map { q(base64($0)) } ?? "nil")),\n"
    }
    out += "    ]\n}\n"
    return out
}

func base64(_ bytes: [UInt8]) -> String {
    let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
        let n = min(3, bytes.count - i)
        let b0 = UInt32(bytes[i]), b1 = n > 1 ? UInt32(bytes[i + 1]) : 0, b2 = n > 2 ? UInt32(bytes[i + 2]) : 0
        let v = b0 << 16 | b1 << 8 | b2
        out.append(table[Int(v >> 18 & 63)])
        out.append(table[Int(v >> 12 & 63)])
        out.append(n > 1 ? table[Int(v >> 6 & 63)] : UInt8(ascii: "="))
        out.append(n > 2 ? table[Int(v & 63)] : UInt8(ascii: "="))
        i += 3
    }
    return String(decoding: out, as: UTF8.self)
}
