import Testing
import IsletFrame
import IsletRender

@Test func pbmIsPlainP1WithOneForLitPixels() {
    // Netpbm: P1, width, height, then one digit per pixel, 1 = black; we write lit as 1.
    let b = Bitmap(ascii: ["#.", ".#"])
    #expect(ImageFile.pbm(b) == "P1\n2 2\n1 0\n0 1\n")
    #expect(ImageFile.parsePBM("P1\n# comment\n2 2\n1001\n") == b)
    #expect(ImageFile.parsePBM("P1\n2 2\n1 0 0\n") == nil)
}
