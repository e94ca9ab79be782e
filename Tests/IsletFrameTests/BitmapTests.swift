import Testing
import IsletFrame

@Test func pixelsArePagePackedLikeGDDRAM() {
    // SSD1306 datasheet 8.7: each page byte is one column, D0 the top row of the page.
    var b = Bitmap(width: 4, height: 16)
    b[1, 0] = true
    b[1, 7] = true
    b[2, 9] = true
    #expect(b.byte(page: 0, column: 1) == 0b1000_0001)
    #expect(b.byte(page: 1, column: 2) == 0b0000_0010)
    #expect(b.bytes.count == 8)
    #expect(b.litCount == 3)
}

@Test func writesOutsideTheFrameAreClipped() {
    var b = Bitmap(width: 8, height: 8)
    b[-1, 0] = true
    b[8, 0] = true
    b[0, 8] = true
    #expect(b.litCount == 0)
}

@Test func asciiArtRoundTrips() {
    let art = ["#..#", ".##.", "#..#"]
    let b = Bitmap(ascii: art)
    #expect(b.width == 4 && b.height == 3)
    #expect(b.asciiRows == art)
}
