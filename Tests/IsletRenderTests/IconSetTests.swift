@testable import IsletIcons
import Testing
import IsletFrame
import IsletCore
@testable import IsletRender

/// The built-in set: every icon drawn at every size, distinct, found by its wire name.
struct IconSetTests {
    @Test(arguments: Icon.allCases)
    func drawnAtEverySize(icon: Icon) {
        for size in IconSize.allCases {
            let art = icon.art(size)
            #expect(art.count == size.pixels && art.allSatisfy { $0.count == size.pixels }, "\(icon) at \(size.pixels)")
            #expect(art.allSatisfy { $0.allSatisfy { $0 == "#" || $0 == "." } })
            #expect(icon.image.art(size) == art, "the masks are the art")
            // Not blank, and not a filled square either.
            let lit = art.joined().filter { $0 == "#" }.count
            #expect(lit > size.pixels && lit < size.pixels * size.pixels * 3 / 4, "\(icon) at \(size.pixels): \(lit) lit")
        }
    }

    /// Drawn, not scaled: the 32 px art is not the 16 px art doubled (except where it is a
    /// plain shape), and every icon differs from every other at every size.
    @Test func distinctFromEveryOther() {
        for size in IconSize.allCases {
            let arts = Icon.allCases.map { $0.art(size) }
            #expect(Set(arts).count == arts.count, "two icons look the same at \(size.pixels)")
        }
        let doubled = Icon.allCases.filter { icon in
            IconImage.resample(icon.image.rows(.medium), from: 16, to: 32) == icon.image.rows(.large)
        }
        #expect(doubled.isEmpty, "\(doubled) at 32 px are the 16 px art doubled")
    }

    @Test func namesRoundTrip() throws {
        #expect(Icon.names.count == 17)
        #expect(Icon.names.contains("cycle_end") && Icon.names.contains("laundry"))
        for icon in Icon.allCases { #expect(try Icon(name: icon.rawValue) == icon) }
        #expect(Icon.names.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }

    @Test func unknownNameListsTheValidOnes() {
        #expect(throws: IconNameError(name: "Laundry")) { try Icon(name: "Laundry") }
        let message = IconNameError(name: "toaster\n").description
        #expect(message.hasPrefix("unknown icon \"toaster\\n\": the icons are meditation, stopwatch, pause, cycle_end, complete, laundry,"))
        #expect(message.hasSuffix("door, music"))
        #expect(IconNameError(name: String(repeating: "x", count: 500)).description.count < 300)
    }

    /// On the 96×16 strip the minimal presentation draws the 12 px pause icon, centred, with
    /// two rows above and below: what the 12 px art is for.
    @Test func shortPanelsUseTheSmallDrawing() throws {
        let paused = try frame(["--size", "96x16", "--presentation", "minimal", "--state", "paused"])
        #expect(crop(paused, x: 42, y: 0, w: 12, h: 16) == [
            "............",
            "............",
            "............",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "..###..###..",
            "............",
            "............",
            "............",
        ])
        #expect(paused.litCount == 60)
    }
}
