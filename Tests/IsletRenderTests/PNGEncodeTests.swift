import Testing
import CPNG
import IsletFrame
import IsletRender

/// The page's and Home Assistant's PNG, read back by libpng's own reader (not ours): the PNG
/// specification's IHDR says 1-bit greyscale, and every pixel is its panel pixel's, scaled.
@Suite("the panel as PNG")
struct PNGEncodeTests {
    /// libpng's simplified reader: (width, height, 8-bit grey pixels).
    static func read(_ png: [UInt8]) -> (Int, Int, [UInt8])? {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let begun = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { return nil }
        image.format = UInt32(PNG_FORMAT_GRAY)
        let w = Int(image.width), h = Int(image.height)
        var pixels = [UInt8](repeating: 0x55, count: w * h)
        let done = png.withUnsafeBytes { _ in
            pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, Int32(w), nil) }
        }
        png_image_free(&image)
        return done != 0 ? (w, h, pixels) : nil
    }

    static func picture() -> Bitmap {
        // Irregular on purpose: lit pixels at both edges, a column at x = 7 and 8 (a byte edge of the
        // 1-bit rows at scale 1), a diagonal.
        var b = Bitmap(width: 128, height: 64)
        for i in 0..<64 { b[i * 2, i] = true }
        for y in 0..<64 { b[7, y] = y % 3 == 0; b[8, y] = y % 5 == 0 }
        b[0, 0] = true; b[127, 63] = true; b[127, 0] = true
        return b
    }

    @Test("1-bit grey per IHDR, every pixel its panel pixel at scales 1, 3, 8 and 16", arguments: [1, 3, 8, 16])
    func pixels(scale: Int) throws {
        let b = Self.picture()
        let png = try #require(ImageFile.png(b, scale: scale))
        // Signature, then IHDR: length 13, "IHDR", width, height (big-endian), bit depth, colour type.
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        func be32(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be32(16) == 128 * scale && be32(20) == 64 * scale)
        #expect(png[24] == 1, "bit depth \(png[24]), want 1")
        #expect(png[25] == 0, "colour type \(png[25]), want 0 (greyscale)")
        let (w, h, grey) = try #require(Self.read(png))
        #expect(w == 128 * scale && h == 64 * scale)
        var wrong = 0
        for y in 0..<h {
            for x in 0..<w where (grey[y * w + x] == 0xFF) != b[x / scale, y / scale] || (grey[y * w + x] != 0 && grey[y * w + x] != 0xFF) {
                wrong += 1
            }
        }
        #expect(wrong == 0, "\(wrong) of \(w * h) pixels differ at scale \(scale)")
    }

    @Test("at scale 16 the picture is small: the repeated rows cost next to nothing")
    func small() throws {
        let png = try #require(ImageFile.png(Self.picture(), scale: 16))
        // 2048×1024 at 1 bit is 256 KiB raw; 15 of every 16 rows repeat the one above.
        #expect(png.count < 16 * 1024, "\(png.count) bytes")
    }

    @Test("an empty or too-large request is refused, not guessed")
    func refused() {
        #expect(ImageFile.png(Bitmap(width: 128, height: 64), scale: 0) == nil)
        #expect(ImageFile.png(Bitmap(width: 128, height: 64), scale: 65) == nil)
    }
}
