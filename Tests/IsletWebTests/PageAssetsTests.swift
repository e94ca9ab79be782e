import Testing
import IsletSystem
import IsletTestSupport
import IsletWeb

/// Issue 46 §4, issue 47 §5: the page's assets are files (Sources/IsletWeb/Assets), joined as
/// served.txt says and made at build time; what the page serves is those files' bytes (only the
/// addresses of hashed assets renamed), under names that change when a byte does, with a gzip
/// that is the same bytes.
@Suite("the page's assets")
struct PageAssetsTests {
    static let folder = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
        .joined(separator: "/")) + "/Sources/IsletWeb/Assets/"

    static func file(_ name: String) -> [UInt8]? {
        try? FileSystem.readFile(folder + name).get()
    }

    /// served.txt's lines, read here on their own: address, cache, files.
    static var served: [(address: String, immutable: Bool, files: [String])] {
        let text = String(decoding: file("served.txt") ?? [], as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let w = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let first = w.first, !first.hasPrefix("#"), w.count >= 3 else { return nil }
            return (first, w[1] == "immutable", Array(w.dropFirst(2)))
        }
    }

    /// FNV-1a 64 as its definition says it (offset basis, prime), in 16 hex digits.
    static func fnv(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 14_695_981_039_346_656_037
        for b in bytes { h = (h ^ UInt64(b)) &* 1_099_511_628_211 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `s` without blanks (spaces, tabs): what the build's trims may take out besides comments.
    static func solid(_ s: Substring) -> [Character] { s.filter { $0 != " " && $0 != "\t" } }

    /// Whether `part` is `whole` with characters taken out only (none added, none moved).
    static func within(_ part: [Character], _ whole: [Character]) -> Bool {
        var it = whole.makeIterator()
        return part.allSatisfy { c in while let w = it.next() { if w == c { return true } }; return false }
    }

    @Test("each text address is its files joined, line for line (no line moved), with only blanks and comments taken out, hashed addresses renamed, and words.js's other languages moved to their own files")
    func byteForByte() throws {
        let served = Self.served
        #expect(served.contains { $0.address == "/" && !$0.immutable && $0.files == ["index.html"] })
        #expect(served.contains { $0.address == "/app.js" && $0.immutable && $0.files.starts(with: ["words.js", "parts.js", "behaviour.js"]) })
        #expect(!served.contains { $0.address == "/app.js" && $0.files.contains("settings.js") }, "settings.js comes when its card opens")
        for line in served where !line.address.contains("*") && line.files.allSatisfy({ !$0.hasSuffix(".png") && !$0.hasSuffix(".ico") }) {
            let asset = try #require(PageAssets.find(line.address)?.asset)
            // A claim (`words.js:PREFIX`) is the English the build hands the script first, one
            // `ISLET_WORDS.add("en", {…});` (checked by `claimedWords`); the files follow it.
            let plain = line.files.filter { !$0.contains(":") }
            let files = plain.compactMap(Self.file)
            #expect(files.count == plain.count)
            var text = String(decoding: files.flatMap { $0 }, as: UTF8.self)
            for other in PageAssets.all where other.immutable { text = text.replacing("\"\(other.address)\"", with: "\"\(other.path)\"") }
            let source = text.split(separator: "\n", omittingEmptySubsequences: false)
            var madeText = Substring(String(decoding: asset.identity, as: UTF8.self))
            for claim in line.files where claim.contains(":") {
                let end = try #require(madeText.firstRange(of: "});\n"), "\(line.address): no \(claim) before its files")
                #expect(madeText.hasPrefix("ISLET_WORDS.add(\"en\",{"), "\(line.address)")
                madeText = madeText[end.upperBound...]
            }
            let made = madeText.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(made.count == source.count, "\(line.address): \(made.count) lines, its files \(source.count)")
            var bad: [Int] = []
            for (i, (m, f)) in zip(made, source).enumerated() {
                // The langs line gains the address of each language's file (docs/WEB.md "Delivery").
                let m = m.contains("files:{") ? m.split(separator: "files:{")[0] : m
                let comment = f.contains("//") || f.contains("/*") || f.contains("|")
                if comment ? !Self.within(Self.solid(m), Self.solid(f)) : Self.solid(m) != Self.solid(f) { bad.append(i + 1) }
            }
            #expect(bad.isEmpty, "\(line.address): lines \(bad.prefix(5)) are not their files' lines less blanks and comments")
        }
    }

    @Test("each language but English has its own hashed words file with each key's words in it; /app.js names it and holds English only")
    func words() throws {
        let text = String(decoding: try #require(Self.file("words.js")), as: UTF8.self)
        let langsLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("langs: [") })
        let langs = langsLine.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(langs.count == 7 && langs.first == "en")
        let entries = text.split(separator: "\n").filter { $0.contains(": \"") && $0.contains("|") }.map { l in
            (key: String(l.split(separator: ":")[0]), parts: l.split(separator: "\"")[1].split(separator: "|", omittingEmptySubsequences: false).map(String.init))
        }
        let app = String(decoding: try #require(PageAssets.find("/app.js")?.asset).identity, as: UTF8.self)
        for (j, lang) in langs.enumerated().dropFirst() {
            let a = try #require(PageAssets.find("/words-\(lang.lowercased()).js")?.asset, "\(lang)")
            #expect(a.immutable && app.contains("\"\(lang)\":\"\(a.path)\""), "\(lang)")
            let words = String(decoding: a.identity, as: UTF8.self)
            let missing = entries.filter { !words.contains("\($0.key):\"\($0.parts[j])\"") }.map(\.key)
            #expect(missing.isEmpty, "\(lang) lacks \(missing.prefix(5))")
            let foreign = entries.filter { $0.parts[j] != $0.parts[0] && app.contains("\"\($0.parts[j])\"") }.map(\.key)
            #expect(foreign.isEmpty, "/app.js holds \(lang)'s words of \(foreign.prefix(5))")
        }
        #expect(PageAssets.find("/words-en.js") == nil)
    }

    @Test("settings.js brings the English of every s_ key its markup does not say, as words.js says it; /app.js holds none of them")
    func claimedWords() throws {
        let text = String(decoding: try #require(Self.file("words.js")), as: UTF8.self)
        let settings = String(decoding: try #require(Self.file("settings.js")), as: UTF8.self)
        let english = text.split(separator: "\n").filter { $0.hasPrefix("s_") && $0.contains(": \"") }.map { l in
            (key: String(l.split(separator: ":")[0]), en: String(l.split(separator: "\"")[1].split(separator: "|")[0]))
        }
        #expect(english.count >= 20)
        let served = String(decoding: try #require(PageAssets.find("/settings.js")?.asset).identity, as: UTF8.self)
        let app = String(decoding: try #require(PageAssets.find("/app.js")?.asset).identity, as: UTF8.self)
        let page = String(decoding: try #require(PageAssets.page).identity, as: UTF8.self)
        for (key, en) in english {
            // Said by the card's markup (settings.js) or the page's: read back from the element.
            let said = settings.contains("data-w=\"\(key)\">\(en)</") || page.contains("data-w=\"\(key)\">\(en)</")
            #expect(served.contains("\n\(key):\"\(en)\"") != said, "\(key): in settings.js's words \(!said), said by markup \(said)")
            #expect(!app.contains("\(key):"), "/app.js holds \(key)")
        }
    }

    @Test("a hashed name is its address with the first 12 hex digits of the FNV-1a 64 of its bytes; the page names only hashed ones")
    func names() throws {
        #expect(Self.fnv(Array("a".utf8)) == "af63dc4c8601ec8c")   // the published test vector
        for a in PageAssets.all {
            #expect(a.hash == Self.fnv(a.identity), "\(a.address)")
            if a.immutable {
                let dot = try #require(a.address.lastIndex(of: "."))
                #expect(a.path == a.address[..<dot] + "." + a.hash.prefix(12) + a.address[dot...])
                #expect(PageAssets.find(a.path)?.hashed == true && PageAssets.find(a.address)?.hashed == false)
            } else {
                #expect(a.path == a.address && PageAssets.find(a.address)?.hashed == false)
            }
        }
        // The page, or its script for the files it asks for later (settings.js, a language's words).
        let page = String(decoding: try #require(PageAssets.page).identity, as: UTF8.self)
        let script = String(decoding: try #require(PageAssets.find("/app.js")?.asset).identity, as: UTF8.self)
        for a in PageAssets.all where a.immutable && [".css", ".js"].contains(where: a.address.hasSuffix) {
            let names = page.contains("\"\(a.path)\"") || script.contains("\"\(a.path)\"")
            #expect(names && !page.contains("\"\(a.address)\"") && !script.contains("\"\(a.address)\""), "\(a.address)")
        }
        #expect(PageAssets.find("/index.html")?.asset == PageAssets.page && PageAssets.find("/app.0000.js") == nil)
    }

    @Test("every text asset's gzip is its bytes, smaller; images are not gzipped again")
    func gzip() throws {
        for a in PageAssets.all {
            if a.type.hasPrefix("image/") {
                #expect(a.gzip == nil, "\(a.address)")
            } else {
                let packed = try #require(a.gzip, "\(a.address)")
                #expect(packed.count < a.identity.count && Inflate.bytes(packed) == a.identity, "\(a.address)")
            }
        }
    }

    /// A PNG's width and height from its IHDR, nil when it is not a PNG.
    static func pngSize(_ b: [UInt8]) -> (Int, Int)? {
        guard b.count > 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), b[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        let be = { (i: Int) in b[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    @Test("the icons are PNGs of their named sizes; favicon.ico is an ICO holding the 32-px PNG")
    func icons() throws {
        for (address, side) in [("/icon-192.png", 192), ("/icon-512.png", 512), ("/favicon.png", 32)] {
            let a = try #require(PageAssets.find(address)?.asset)
            let size = try #require(Self.pngSize(a.identity), "\(address)")
            #expect(size == (side, side) && a.type == "image/png", "\(address)")
        }
        let ico = try #require(PageAssets.find("/favicon.ico")?.asset)
        #expect(ico.type == "image/x-icon" && ico.identity.starts(with: [0, 0, 1, 0, 1, 0]) && ico.identity[6] == 32)
        #expect(Array(ico.identity.dropFirst(22)) == PageAssets.find("/favicon.png")?.asset.identity)
    }
}
