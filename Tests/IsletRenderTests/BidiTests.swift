import Testing
@testable import IsletRender

/// Shaping and reordering at the code-point level. Expected values are Unicode's Arabic
/// Presentation Forms-B (U+FE70–FEFF, see the Unicode code charts) chosen by the joining
/// rules of Unicode chapter 9.2, in visual (left-to-right drawing) order.
struct BidiTests {
    func hex(_ l: VisualLine) -> [UInt32] { l.scalars.map(\.value) }

    @Test func arabicCycleLabelIsShapedAndReordered() {
        // "الدورة 2 من 3" (cycle 2 of 3). Logical: alef lam dal waw reh teh-marbuta, 2, meem noon, 3.
        let l = BidiText.visualLine("الدورة 2 من 3")
        #expect(l.isRightToLeft)
        #expect(hex(l) == [
            0x33, 0x20,
            0xFEE6, 0xFEE3,          // noon final, meem initial ("من" reversed)
            0x20, 0x32, 0x20,
            0xFE93,                  // teh marbuta isolated (reh does not join left)
            0xFEAD,                  // reh isolated (waw does not join left)
            0xFEED,                  // waw isolated (dal does not join left)
            0xFEAA,                  // dal final (joined from lam)
            0xFEDF,                  // lam initial (alef does not join left)
            0xFE8D,                  // alef isolated
        ])
    }

    @Test func lamAlefBecomesOneLigature() {
        // "سلام": seen initial, lam-alef final ligature (U+FEFC), meem isolated.
        #expect(hex(BidiText.visualLine("سلام")) == [0xFEE1, 0xFEFC, 0xFEB3])
    }

    @Test func numbersInsideRightToLeftLabelsKeepTheirOrder() {
        let l = BidiText.visualLine("الدورة 12 من 30")
        let digits = l.scalars.filter { $0.properties.numericType != nil }.map { Character($0) }
        #expect(String(digits) == "3012")   // "30" then "12", each left to right
    }

    @Test func hebrewIsReorderedNotShaped() {
        // "מחזור 2 מתוך 3": letters reversed per word order, digits kept.
        let l = BidiText.visualLine("מחזור 2 מתוך 3")
        #expect(l.isRightToLeft)
        #expect(hex(l) == [0x33, 0x20, 0x05DA, 0x05D5, 0x05EA, 0x05DE, 0x20, 0x32, 0x20,
                           0x05E8, 0x05D5, 0x05D6, 0x05D7, 0x05DE])
    }

    @Test func latinStaysAsWritten() {
        let l = BidiText.visualLine("Cycle 2 of 3")
        #expect(!l.isRightToLeft)
        #expect(String(String.UnicodeScalarView(l.scalars)) == "Cycle 2 of 3")
    }

    @Test func rightToLeftLabelsAreRightAligned() throws {
        // Hebrew lock screen, running: the cycle label ends at the right margin (x 125).
        let b = try frame(["--presentation", "lockscreen", "--size", "128x64", "--language", "he",
                           "--remaining", "754", "--duration", "1200", "--cycle", "2", "--cycles", "3"])
        let rows = 48..<64
        let lit = (0..<128).filter { x in rows.contains { b[x, $0] } }
        #expect((lit.max() ?? 0) >= 118)
        #expect((lit.min() ?? 0) > 10)
        let en = try frame(["--presentation", "lockscreen", "--size", "128x64",
                            "--remaining", "754", "--duration", "1200", "--cycle", "2", "--cycles", "3"])
        let litEn = (0..<128).filter { x in rows.contains { en[x, $0] } }
        #expect((litEn.min() ?? 99) <= 3)
    }
}
