@testable import IsletIcons
import Testing
import IsletRender
import IsletTestSupport

/// Custom icons from a hostile sender: each is refused with an error that says what is wrong.
struct CustomIconHostileTests {
    static let arrow = CustomIconTests.arrow

    func error(_ body: () throws(CustomIconError) -> IconImage) -> CustomIconError? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test func wrongSizeNamesTheSizeAndTheAccepted() throws {
        let art = [String](repeating: String(repeating: "#", count: 40), count: 40)
        let e = error { () throws(CustomIconError) in try CustomIcon.decode(bytes: TestPictures.png1(art)) }
        #expect(e?.description == "custom icon: PNG is 40×40; icons are 12×12, 16×16 or 32×32")
        let wide = [String](repeating: String(repeating: "#", count: 16), count: 12)
        let p1 = error { () throws(CustomIconError) in try CustomIcon.decode(bytes: TestPictures.p1(wide)) }
        #expect(p1 == .wrongSize(format: "PBM (P1)", width: 16, height: 12))
    }

    @Test func absurdHeaders() {
        let huge = Array("P4 2147483648 1\n".utf8) + [0xFF]
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: huge) } == .wrongSize(format: "PBM (P4)", width: 999_999_999, height: 1))
        var png = TestPictures.png1(Self.arrow)
        png.replaceSubrange(16..<20, with: [0x80, 0, 0, 0])   // IHDR width 2^31
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: png) } == .wrongSize(format: "PNG", width: 1 << 31, height: 12))
    }

    @Test func truncatedFiles() {
        let p4 = TestPictures.p4(Self.arrow)
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: Array(p4.dropLast(3))) } == .truncated(format: "PBM (P4)", detail: "21 of 24 pixel bytes"))
        let p1 = TestPictures.p1(Self.arrow)
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: Array(p1.prefix(60))) }.map { if case .truncated = $0 { true } else { false } } == true)
        let png = TestPictures.png1(Self.arrow)
        for cut in [9, 20, 33, png.count - 13, png.count - 1] {
            #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: Array(png.prefix(cut))) } != nil, "cut at \(cut)")
        }
    }

    @Test func trailingJunk() {
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: TestPictures.p4(Self.arrow) + [0]) } == .trailingData(format: "PBM (P4)", bytes: 1))
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: TestPictures.p1(Self.arrow) + Array("1 0".utf8)) } == .trailingData(format: "PBM (P1)", bytes: 2))
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: TestPictures.png1(Self.arrow) + [1, 2, 3]) } == .trailingData(format: "PNG", bytes: 3))
        // A second picture after the first is junk too.
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: TestPictures.p1(Self.arrow) + TestPictures.p1(Self.arrow)) } != nil)
    }

    @Test func badBase64() {
        func e(_ s: String) -> CustomIconError? { error { () throws(CustomIconError) in try CustomIcon.decode(base64: s) } }
        #expect(e("") == .empty)
        #expect(e("UDEK*DEy") == .notBase64(position: 4))
        #expect(e("UDEKM") == .badBase64Length(characters: 5))
        #expect(e("UD=K") == .notBase64(position: 2))
        #expect(e("UDEK MTI=") == .badBase64Length(characters: 9))
        #expect(e(String(repeating: "A", count: 10_928)) == .tooLong(characters: 10_928))
        #expect(e("AAAA")?.description.hasPrefix("custom icon: neither PBM (P1, P4) nor PNG") == true)
    }

    @Test func oversizedBytesAndBlankPictures() {
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: [UInt8](repeating: 0x50, count: 8193)) } == .tooLarge(bytes: 8193))
        let blank = [String](repeating: String(repeating: ".", count: 16), count: 16)
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: TestPictures.p4(blank)) } == .blank)
        let digit = Array("P1 12 12\n2".utf8)
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: digit) } == .malformed(format: "PBM (P1)", detail: "byte 10 is not 0 or 1 (pixel 1)"))
    }

    @Test func badChunks() {
        var png = TestPictures.png1(Self.arrow)
        png[30] ^= 0xFF   // inside IHDR's CRC: libpng refuses it
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: png) }.map { if case .malformed("PNG", _) = $0 { true } else { false } } == true)
        var long = TestPictures.png1(Self.arrow)
        long.replaceSubrange(33..<37, with: [0x7F, 0xFF, 0xFF, 0xFF])   // IDAT claims 2 GB
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: long) }.map { if case .truncated("PNG", _) = $0 { true } else { false } } == true)
        let critical = TestPictures.png(width: 12, height: 12, colorType: 0, bitDepth: 1, rows: [[UInt8]](repeating: [0xFF, 0xF0], count: 12),
                                        before: [("ZZZZ", [])])
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: critical) } == .malformed(format: "PNG", detail: "unknown critical chunk ZZZZ"))
    }

    /// An image whose IDAT holds far more data than 12 rows need, and one whose rows are short:
    /// errors or a picture, never a crash, and nothing outside 12×12 is read.
    @Test func imageDataOfTheWrongLength() {
        let rows = [[UInt8]](repeating: [0xFF, 0xF0], count: 600)
        var big = TestPictures.png(width: 12, height: 12, colorType: 0, bitDepth: 1, rows: rows)
        _ = error { () throws(CustomIconError) in try CustomIcon.decode(bytes: big) }
        big = TestPictures.png(width: 12, height: 12, colorType: 0, bitDepth: 1, rows: [[0xFF, 0xF0]])
        #expect(error { () throws(CustomIconError) in try CustomIcon.decode(bytes: big) } != nil)
    }

    /// Mutated valid files (bytes flipped, cut, duplicated), seeded: every one decodes or is
    /// refused; none crashes. `ISLET_FUZZ_SEED` replays a failure.
    @Test func mutatedFilesNeverCrash() {
        var rng = SplitMix(state: seed())
        let valid = [TestPictures.p1(Self.arrow), TestPictures.p4(Self.arrow), TestPictures.png1(Self.arrow)]
        for _ in 0..<fuzzIterations(2000) {
            var b = valid[Int.random(in: 0..<valid.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<b.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: b[i] = UInt8.random(in: 0...255, using: &rng)
                case 1: b = Array(b.prefix(i))
                default: b.insert(contentsOf: b[i...].prefix(8), at: i)
                }
                if b.isEmpty { b = [0] }
            }
            _ = error { () throws(CustomIconError) in try CustomIcon.decode(bytes: b) }
        }
    }
}
