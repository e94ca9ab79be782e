import Testing
import CZlib
import IsletSystem
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

    static func gunzip(_ data: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = data
        var out = [UInt8](repeating: 0, count: 1 << 20)
        let r: Int32 = input.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        return r == Z_STREAM_END ? Array(out.prefix(Int(stream.total_out))) : nil
    }

    /// What the build takes out of a script or stylesheet (docs/WEB.md "Delivery"): each line's
    /// indentation and, in a script, a line that is only a `//` comment; no line moves.
    static func trim(_ bytes: [UInt8], script: Bool) -> [UInt8] {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return Array(lines.map { l -> String in
            let body = String(l.drop { $0 == " " || $0 == "\t" })
            return script && body.hasPrefix("//") ? "" : body
        }.joined(separator: "\n").utf8)
    }

    @Test("each text address is its files' bytes joined (scripts and styles trimmed, no line moved), only the hashed addresses renamed")
    func byteForByte() throws {
        let served = Self.served
        #expect(served.contains { $0.address == "/" && !$0.immutable && $0.files == ["index.html"] })
        #expect(served.contains { $0.address == "/app.js" && $0.immutable && $0.files.starts(with: ["words.js", "parts.js", "behaviour.js"]) })
        for line in served where line.files.allSatisfy({ !$0.hasSuffix(".png") && !$0.hasSuffix(".ico") }) {
            let asset = try #require(PageAssets.find(line.address)?.asset)
            let kind = line.address.hasSuffix(".js") ? 1 : line.address.hasSuffix(".css") ? 2 : 0
            let files = line.files.compactMap(Self.file).map { kind == 0 ? $0 : Self.trim($0, script: kind == 1) }
            #expect(files.count == line.files.count)
            var text = String(decoding: files.flatMap { $0 }, as: UTF8.self)
            for other in PageAssets.all where other.immutable { text = text.replacing("\"\(other.address)\"", with: "\"\(other.path)\"") }
            let same = asset.identity == Array(text.utf8)   // a Bool: a failure names the address, not 40 KB of bytes
            #expect(same, "\(line.address) is not its files' bytes")
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
        let page = String(decoding: try #require(PageAssets.page).identity, as: UTF8.self)
        for a in PageAssets.all where a.immutable && [".css", ".js"].contains(where: a.address.hasSuffix) {
            #expect(page.contains("\"\(a.path)\"") && !page.contains("\"\(a.address)\""), "\(a.address)")
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
                #expect(packed.count < a.identity.count && Self.gunzip(packed) == a.identity, "\(a.address)")
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
