import Testing
import IsletFrame

/// `Bitmap.light(rows:)`: what glyphs and icons are drawn with, one mask per row (bit n is
/// column x + n), written as ASCII art.
@Suite("lighting row masks")
struct LightRowsTests {
    static func art(_ b: Bitmap) -> [String] {
        (0..<b.height).map { y in String((0..<b.width).map { b[$0, y] ? "#" : "." }) }
    }

    @Test("bit n lands at column x + n, row i at y + i; nothing is cleared")
    func placed() {
        var b = Bitmap(width: 6, height: 3)
        b[0, 0] = true
        b.light(rows: [0b101, 0b010][...], x: 2, y: 1)
        #expect(Self.art(b) == ["#.....", "..#.#.", "...#.."])
    }

    @Test("dotted keeps the pixels whose column + row is even (the stale look)")
    func dotted() {
        var b = Bitmap(width: 4, height: 2)
        b.light(rows: [0b1111, 0b1111][...], x: 0, y: 0, dotted: true)
        #expect(Self.art(b) == ["#.#.", ".#.#"])
    }

    @Test("rows that overhang any edge are clipped, never trapped")
    func clipped() {
        var b = Bitmap(width: 4, height: 8)
        b.light(rows: [0xFFFF_FFFF, 1, 1][...], x: -2, y: 6)
        b.light(rows: [1][...], x: 3, y: -1)
        #expect(Self.art(b).suffix(2) == ["####", "...."])   // columns -2…29 of row 6; row 7's only pixel at -2
        #expect(Self.art(b).prefix(6).allSatisfy { $0 == "...." })
    }
}
