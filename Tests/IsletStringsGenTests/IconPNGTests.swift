import IsletIcons
import IsletTestSupport
import Testing
@testable import islet_page_gen

/// The page's icons (docs/WEB.md "Install to a home screen"), read back as a PNG reader reads
/// them (chunks, CRCs, zlib's inflate) and compared with the meditation icon's art as written in
/// its source (`#` lit): the 32-px drawing in the middle of a 64-px black frame, each pixel 3 × 3
/// at 192 px and 8 × 8 at 512 px; the tab's icon the 16-px drawing at 2 × 2.
@Suite("the page's icons")
struct IconPNGTests {
    /// (width, height, rows of lit pixels) of a 1-bit greyscale PNG, each chunk's CRC checked.
    static func decode(_ png: [UInt8]) throws -> (Int, Int, [[Bool]]) {
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func be32(_ i: Int) -> Int { Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3]) }
        var at = 8, width = 0, height = 0, data: [UInt8] = [], types: [String] = []
        while at + 12 <= png.count {
            let length = be32(at), type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
            let body = Array(png[(at + 8)..<(at + 8 + length)])
            #expect(UInt32(be32(at + 8 + length)) == crc32(Array(png[(at + 4)..<(at + 8)]) + body), "\(type)'s CRC")
            types.append(type)
            if type == "IHDR" {
                width = be32(at + 8); height = be32(at + 12)
                #expect(Array(body[8...]) == [1, 0, 0, 0, 0])   // 1 bit, greyscale, deflate, filter method 0, no interlace
            }
            if type == "IDAT" { data += body }
            at += 12 + length
        }
        #expect(types == ["IHDR", "IDAT", "IEND"] && at == png.count)
        let stride = 1 + (width + 7) / 8
        let raw = try #require(Inflate.bytes(data, limit: stride * height + 1))
        #expect(raw.count == stride * height)
        // A pixel is bit 7 − x % 8 of byte x / 8 after the row's filter byte (PNG §7.2).
        func lit(_ x: Int, _ y: Int) -> Bool {
            let byte: UInt8 = raw[y * stride + 1 + x / 8]
            let mask: UInt8 = 0x80 >> UInt8(x % 8)
            return byte & mask != 0
        }
        var rows: [[Bool]] = []
        for y in 0..<height { rows.append((0..<width).map { lit($0, y) }) }
        #expect((0..<height).allSatisfy { raw[$0 * stride] == 0 })   // filter None on every row
        return (width, height, rows)
    }

    /// Whether the icon's art (text, as its source draws it) lights frame pixel (x, y) with the
    /// drawing's top-left at `at`.
    static func lit(_ art: [String], x: Int, y: Int, at: Int) -> Bool {
        let ax = x - at, ay = y - at
        guard ay >= 0, ay < art.count, ax >= 0, ax < art[ay].count else { return false }
        return Array(art[ay])[ax] == "#"
    }

    @Test("192 and 512 px: the 32-px meditation icon centred on a 64-px frame, 3× and 8×")
    func homeScreen() throws {
        let icons = drawnIcons()
        let art = Icon.meditation.art(.large)
        for (name, side, scale) in [("icon-192.png", 192, 3), ("icon-512.png", 512, 8)] {
            let (w, h, rows) = try Self.decode(try #require(icons[name], "\(name)"))
            #expect(w == side && h == side, "\(name)")
            var wrong = 0
            for y in 0..<h { for x in 0..<w where rows[y][x] != Self.lit(art, x: x / scale, y: y / scale, at: 16) { wrong += 1 } }
            #expect(wrong == 0, "\(name): \(wrong) pixels differ from the art")
            let litPixels: Int = rows.reduce(0) { $0 + $1.filter { $0 }.count }
            let artPixels: Int = art.reduce(0) { $0 + $1.filter { $0 == "#" }.count }
            #expect(litPixels == artPixels * scale * scale, "\(name)")
        }
    }

    @Test("the tab's icon: the 16-px drawing at 32 px, and favicon.ico holding that PNG")
    func tab() throws {
        let icons = drawnIcons()
        let art = Icon.meditation.art(.medium)
        let png = try #require(icons["favicon.png"])
        let (w, h, rows) = try Self.decode(png)
        #expect(w == 32 && h == 32)
        var wrong = 0
        for y in 0..<32 { for x in 0..<32 where rows[y][x] != Self.lit(art, x: x / 2, y: y / 2, at: 0) { wrong += 1 } }
        #expect(wrong == 0, "\(wrong) pixels differ from the art")
        let ico = try #require(icons["favicon.ico"])
        // ICONDIR (reserved 0, type 1, one image), one 16-byte entry (32 × 32, 32 bpp, its size, at 22), then the PNG.
        #expect(Array(ico.prefix(6)) == [0, 0, 1, 0, 1, 0])
        #expect(ico[6] == 32 && ico[7] == 32 && Array(ico[18..<22]) == [22, 0, 0, 0] && Array(ico[22...]) == png)
    }

    @Test("the frame is the pill's drawing: Bitmap.draw lights exactly the art's `#`")
    func frames() {
        let (home, _) = iconFrames()
        let art = Icon.meditation.art(.large)
        var wrong = 0
        for y in 0..<64 { for x in 0..<64 where home[x, y] != Self.lit(art, x: x, y: y, at: 16) { wrong += 1 } }
        #expect(wrong == 0, "\(wrong) pixels differ from the art")
    }
}
