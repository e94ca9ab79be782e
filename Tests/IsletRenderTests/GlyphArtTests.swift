import Testing
import IsletCore
@testable import IsletRender

/// The digits, the colon and the pause mark checked against ASCII art written in this file.
/// Digits: Terminus Bold 16 px (ter-u16b, xfonts-terminus) is an 8×16 cell whose digits are
/// 7 columns by 10 rows, two blank rows above (the cap line), a blank right column; the
/// zero carries Terminus's diagonal stroke. The art is that design, row by row.
struct GlyphArtTests {
    static let digits: [Character: [String]] = [
        "0": [".#####..", "##...##.", "##...##.", "##..###.", "##.####.", "####.##.", "###..##.", "##...##.", "##...##.", ".#####.."],
        "1": ["...##...", "..###...", ".####...", "...##...", "...##...", "...##...", "...##...", "...##...", "...##...", ".######."],
        "2": [".#####..", "##...##.", "##...##.", ".....##.", "....##..", "...##...", "..##....", ".##.....", "##......", "#######."],
        "3": [".#####..", "##...##.", "##...##.", ".....##.", "..####..", ".....##.", ".....##.", "##...##.", "##...##.", ".#####.."],
        "4": [".....##.", "....###.", "...####.", "..##.##.", ".##..##.", "##...##.", "#######.", ".....##.", ".....##.", ".....##."],
        "5": ["#######.", "##......", "##......", "##......", "######..", ".....##.", ".....##.", ".....##.", "##...##.", ".#####.."],
        "6": ["..####..", ".##.....", "##......", "##......", "######..", "##...##.", "##...##.", "##...##.", "##...##.", ".#####.."],
        "7": ["#######.", ".....##.", ".....##.", "....##..", "....##..", "...##...", "...##...", "..##....", "..##....", "..##...."],
        "8": [".#####..", "##...##.", "##...##.", "##...##.", ".#####..", "##...##.", "##...##.", "##...##.", "##...##.", ".#####.."],
        "9": [".#####..", "##...##.", "##...##.", "##...##.", "##...##.", ".######.", ".....##.", ".....##.", "....##..", ".####..."],
        // Two 2×2 dots, on rows 4–5 and 9–10 of the digit box.
        ":": ["........", "........", "........", "...##...", "...##...", "........", "........", "........", "...##...", "...##..."],
    ]

    /// The expected 16-row strip of a time string: blank rows 0–1 and 12–15 around the digits.
    static func strip(_ text: String) -> [String] {
        let blank = String(repeating: ".", count: 8 * text.count)
        var rows = [blank, blank]
        for r in 0..<10 { rows.append(text.map { digits[$0]?[r] ?? "????????" }.joined()) }
        return rows + [blank, blank, blank, blank]
    }

    /// On a 96×16 panel the compact time sits right-aligned against a 2-pixel margin
    /// (x 94, 95 dark), in the 16 px face: 8 px per character.
    @Test(arguments: [(754, 1200, "12:34"), (3369, 3600, "56:09"), (468, 3600, "7:48"), (5, 600, "0:05")])
    func compactDigitsMatchTheArt(remaining: Int, duration: Int, text: String) throws {
        let b = try frame(["--size", "96x16", "--remaining", "\(remaining)", "--duration", "\(duration)"])
        let x = 94 - 8 * text.count
        #expect(crop(b, x: x, y: 0, w: 8 * text.count, h: 16) == Self.strip(text))
        #expect(crop(b, x: 94, y: 0, w: 2, h: 16).allSatisfy { $0 == ".." })
    }

    /// Arabic and Hebrew keep the digits in order: 10:23 never becomes 32:01.
    @Test(arguments: ["ar", "he", "ja"])
    func digitsReadLeftToRightInEveryLanguage(language: String) throws {
        let b = try frame(["--size", "96x16", "--remaining", "623", "--duration", "900", "--language", language])
        #expect(crop(b, x: 94 - 40, y: 0, w: 40, h: 16) == Self.strip("10:23"))
    }

    /// The pause mark: two bars 4 px wide and 12 px tall, 2 px apart, centred in a 16×16
    /// cell. On 128×32 compact the cell is at x 2 (margin) and y 6 (centred in the 29 rows
    /// above the progress line).
    @Test func pauseMarkMatchesTheArt() throws {
        let b = try frame(["--state", "paused", "--remaining", "754", "--duration", "1200"])
        let bars = "...####..####..."
        let empty = "................"
        let art = [empty, empty] + Array(repeating: bars, count: 12) + [empty, empty]
        #expect(crop(b, x: 2, y: 6, w: 16, h: 16) == art)
        // The running frame at the same place shows the meditation figure instead.
        let running = try frame(["--state", "running", "--remaining", "754", "--duration", "1200"])
        #expect(crop(running, x: 2, y: 6, w: 16, h: 16) != art)
    }

    /// The stale look: the time keeps only a checkerboard of its pixels.
    @Test func staleTimeIsDotted() throws {
        let fresh = try frame(["--size", "96x16", "--remaining", "754", "--duration", "1200"])
        let stale = try frame(["--size", "96x16", "--remaining", "754", "--duration", "1200", "--stale"])
        for y in 0..<16 {
            for x in 54..<94 {
                #expect(stale[x, y] == (fresh[x, y] && (x + y) % 2 == 0), "pixel \(x),\(y)")
            }
        }
    }
}
