import Testing
import IsletRender

/// Custom icons that should be accepted: every format gives back the picture that was sent.
struct CustomIconTests {
    /// An up arrow, as a person would draw it for the 12 px icon.
    static let arrow = [
        ".....##.....",
        "....####....",
        "...######...",
        "..##.##.##..",
        ".##..##..##.",
        ".....##.....",
        ".....##.....",
        ".....##.....",
        ".....##.....",
        ".....##.....",
        ".....##.....",
        "............",
    ]

    @Test func plainPBM() throws {
        let icon = try CustomIcon.decode(base64: TestPictures.base64(TestPictures.p1(Self.arrow)))
        #expect(icon.art(.small) == Self.arrow)
    }

    @Test func rawPBM() throws {
        #expect(try CustomIcon.decode(bytes: TestPictures.p4(Self.arrow)).art(.small) == Self.arrow)
    }

    @Test func oneBitGreyPNG() throws {
        #expect(try CustomIcon.decode(bytes: TestPictures.png1(Self.arrow)).art(.small) == Self.arrow)
    }

    /// 8-bit grey thresholded at 50%: 128 is lit, 127 is not.
    @Test func eightBitGreyPNG() throws {
        let rows = Self.arrow.map { row in row.map { $0 == "#" ? UInt8(128) : UInt8(127) } }
        let png = TestPictures.png(width: 12, height: 12, colorType: 0, bitDepth: 8, rows: rows)
        #expect(try CustomIcon.decode(bytes: png).art(.small) == Self.arrow)
    }

    /// RGBA: white opaque is lit; white but mostly transparent, and black opaque, are not.
    @Test func rgbaPNG() throws {
        let rows = Self.arrow.enumerated().map { y, row in
            row.enumerated().flatMap { x, c -> [UInt8] in
                if c == "#" { return [255, 255, 255, 200] }
                return (x + y) % 2 == 0 ? [255, 255, 255, 100] : [0, 0, 0, 255]
            }
        }
        let png = TestPictures.png(width: 12, height: 12, colorType: 6, bitDepth: 8, rows: rows)
        #expect(try CustomIcon.decode(bytes: png).art(.small) == Self.arrow)
    }

    /// A palette image whose tRNS makes its white entry transparent: those pixels are unlit.
    @Test func palettePNGWithTransparency() throws {
        let plte: [UInt8] = [0, 0, 0, 255, 255, 255, 255, 255, 255]   // black, white, white
        let trns: [UInt8] = [255, 255, 0]                              // the second white is transparent
        let rows = Self.arrow.map { row in row.map { $0 == "#" ? UInt8(1) : UInt8(2) } }
        let png = TestPictures.png(width: 12, height: 12, colorType: 3, bitDepth: 8, rows: rows,
                                   before: [("PLTE", plte), ("tRNS", trns)])
        #expect(try CustomIcon.decode(bytes: png).art(.small) == Self.arrow)
    }

    /// Ancillary chunks are dropped unread: a text chunk of garbage does not matter.
    @Test func ancillaryChunksAreIgnored() throws {
        let text = Array("Comment\u{0}made by hand".utf8)
        let rows = Self.arrow.map { row in row.map { $0 == "#" ? UInt8(255) : UInt8(0) } }
        let png = TestPictures.png(width: 12, height: 12, colorType: 0, bitDepth: 8, rows: rows,
                                   before: [("tEXt", text), ("zTXt", [1, 2, 3, 4])])
        #expect(try CustomIcon.decode(bytes: png).art(.small) == Self.arrow)
    }

    /// The same text decodes to the same masks: what lets the state file keep the base64 as sent.
    @Test func decodingIsRepeatable() throws {
        let text = TestPictures.base64(TestPictures.png1(Self.arrow))
        #expect(try CustomIcon.decode(base64: text) == CustomIcon.decode(base64: text))
    }

    @Test func limitsAreConsistent() {
        #expect(CustomIcon.maxBase64Characters == 10_924)
        #expect(CustomIcon.maxBytes == 8192)
    }
}
