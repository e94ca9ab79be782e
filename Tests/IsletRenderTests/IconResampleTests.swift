import Testing
import IsletRender

/// A custom icon arrives at one size; the other two are derived. Expectations written by hand
/// from the rule in docs/RENDERING.md: down, a pixel is lit when any source pixel whose centre it
/// holds is lit (thin lines survive); up, nearest neighbour.
struct IconResampleTests {
    /// A 16 px frame with a 1 px bar at column 4.
    static let framed16 = ["################"]
        + [String](repeating: "#...#..........#", count: 14)
        + ["################"]

    @Test func sixteenDownToTwelveKeepsOnePixelLines() throws {
        let icon = try CustomIcon.decode(bytes: TestPictures.p4(Self.framed16))
        #expect(icon.art(.medium) == Self.framed16)
        #expect(icon.art(.small) == ["############"]
            + [String](repeating: "#..#.......#", count: 10)
            + ["############"])
    }

    @Test func sixteenUpToThirtyTwoDoubles() throws {
        let icon = try CustomIcon.decode(bytes: TestPictures.p4(Self.framed16))
        let big = icon.art(.large)
        #expect(big.count == 32)
        for y in 0..<32 {
            let expected = String(Self.framed16[y / 2].flatMap { [$0, $0] })
            #expect(big[y] == expected, "row \(y)")
        }
    }

    /// 12 → 16: columns 1, 4, 7 and 10 of the 12 px art are shown twice (nearest neighbour).
    @Test func twelveUpToSixteen() throws {
        let twelve = ["############"]
            + [String](repeating: "#..#.......#", count: 10)
            + ["############"]
        let icon = try CustomIcon.decode(bytes: TestPictures.p1(twelve))
        #expect(icon.art(.medium) == ["################"]
            + [String](repeating: "#...#..........#", count: 14)
            + ["################"])
    }

    /// 32 → 12 and 16: a 1 px outline stays a closed 1 px outline.
    @Test func thirtyTwoDownKeepsTheOutline() throws {
        let outline = ["################################"]
            + [String](repeating: "#" + String(repeating: ".", count: 30) + "#", count: 30)
            + ["################################"]
        let icon = try CustomIcon.decode(bytes: TestPictures.png1(outline))
        #expect(icon.art(.medium) == ["################"]
            + [String](repeating: "#..............#", count: 14)
            + ["################"])
        #expect(icon.art(.small) == ["############"]
            + [String](repeating: "#..........#", count: 10)
            + ["############"])
    }
}
