import CZlib
import IsletSystem
import IsletTestSupport
import Testing
@testable import islet_page_gen

/// The page's gzip files and the icons' image data (libdeflate, level 12), read back by zlib, an
/// inflater we did not choose for writing: what browsers and PNG readers do.
@Suite("gzip and zlib streams made at build time")
struct DeflateTests {
    static func asset(_ name: String) throws -> [UInt8] {
        let folder = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/"))
        return try FileSystem.readFile(folder + "/Sources/IsletWeb/Assets/" + name).get()
    }

    @Test("a gzip member (RFC 1952): deflate, no name, no time; zlib reads back the same bytes")
    func gzipReadBack() throws {
        let text = try Self.asset("behaviour.js")
        let g = try #require(gzip(text))
        #expect(Array(g.prefix(4)) == [0x1F, 0x8B, 8, 0])   // ID1 ID2, CM 8 (deflate), FLG 0: no FNAME, FEXTRA, FCOMMENT
        #expect(Array(g[4..<8]) == [0, 0, 0, 0])              // MTIME 0: a build repeats byte for byte
        #expect(Inflate.bytes(g, limit: text.count + 1) == text)
        #expect(gzip(text) == g)
    }

    @Test("smaller than zlib's own best (level 9) on the page's files")
    func smallerThanZlib() throws {
        for name in ["behaviour.js", "app.css", "index.html", "words.js"] {
            let text = try Self.asset(name)
            var size = compressBound(UInt(text.count))
            var packed = [UInt8](repeating: 0, count: Int(size))
            #expect(compress2(&packed, &size, text, UInt(text.count), 9) == Z_OK)
            let ours = try #require(zlibStream(text))
            #expect(ours.count <= Int(size), "\(name): \(ours.count) B against zlib's \(size) B")
            #expect(Inflate.bytes(ours, limit: text.count + 1) == text, "\(name)")
        }
    }

    @Test("CRC-32 as PNG and gzip use it: the check value of \"123456789\" is CBF43926 (ISO 3309)")
    func crc() {
        #expect(crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(crc32([]) == 0)
    }
}
