import IsletFrame
@testable import IsletIcons
import Testing
import IsletCore
@testable import IsletRender

/// The until kind's presentations (docs/RENDERING.md, "Pushed activities"), checked against
/// pictures this suite does not draw itself: the icon art, a countdown's digits for the same
/// time, the bar's rule (lit up to the share done, then every fourth pixel).
struct UntilRenderTests {
    let t0 = PropertyTests.t0

    func until(_ p: PushedContent, title: String? = "Laundry", icon: ActivityIcon? = .named("laundry"), language: String = "en") throws -> Activity {
        let attrs = ActivityAttributes(timerID: "laundry", kind: .until(p), title: title, language: language, icon: icon)
        return try #require(try TimerMachine.apply(.start(attrs), to: nil, now: t0).activity)
    }

    @Test func compactShowsItsIconAndTheTimeToItsSourcesEnd() throws {
        let r = try Shared.get()
        let a = try until(PushedContent(endsAt: t0 + .seconds(754)))
        let frame = r.render([a], presentation: .compact, now: t0, size: .w128h32)
        // The laundry's 16 px drawing at the leading edge (2 px margin), centred in the 29
        // rows above the bar's 3 (a countdown keeps them too).
        let art = Icon.laundry.image.art(.medium)
        #expect(crop(frame, x: 2, y: (29 - 16) / 2, w: 16, h: 16) == art)
        // "12:34" where a 20-minute countdown with 754 s left draws it: same face, same place.
        let countdown = try PropertyTests.countdown(minutes: 20, cycles: 1)
        let later = t0 + .seconds(1200 - 754)
        let reference = r.render([countdown], presentation: .compact, now: later, size: .w128h32)
        let region = try #require(r.timeRegion(countdown, presentation: .compact, now: later, size: .w128h32))
        #expect(r.timeRegion(a, presentation: .compact, now: t0, size: .w128h32).map { [$0.x, $0.y, $0.width, $0.height] }
                == [region.x, region.y, region.width, region.height])
        #expect(crop(frame, x: region.x, y: region.y, w: region.width, h: region.height)
                == crop(reference, x: region.x, y: region.y, w: region.width, h: region.height))
    }

    @Test func withoutAnEndTheFigureIsTheProgressAndTheBarFollowsIt() throws {
        let r = try Shared.get()
        let forty = r.render([try until(PushedContent(progress: 0.4))], presentation: .compact, now: t0, size: .w128h32)
        let fortyOne = r.render([try until(PushedContent(progress: 0.41))], presentation: .compact, now: t0, size: .w128h32)
        let zero = r.render([try until(PushedContent(endsAt: t0))], presentation: .compact, now: t0, size: .w128h32)
        #expect(forty != fortyOne, "the percentage is drawn")
        #expect(forty != zero, "never a 0:00 for an activity that has no end")
        // The bar: the last lit row, spanning the figure's column; 40% of it solid.
        let bottom = try #require((0..<32).reversed().first { y in (0..<128).contains { forty[$0, y] } })
        let lit = (0..<128).filter { forty[$0, bottom] }
        let start = try #require(lit.first), end = try #require(lit.last)
        let width = end - start + 1
        let solid = (start..<(start + width)).prefix { forty[$0, bottom] }.count
        #expect(solid == width * 40 / 100 || solid == width * 40 / 100 + 1, "solid \(solid) of \(width)")
    }

    @Test func minimalIsTheIconWithTheProgress() throws {
        let r = try Shared.get()
        let a = try until(PushedContent(progress: 0.5))
        let frame = r.render([a], presentation: .minimal, now: t0, size: .w128h64)
        // 128×64 minimal: the 32 px drawing, centred, the bar 3 rows under it.
        let s = 32, x = (128 - s) / 2, y = (64 - s - 4) / 2
        #expect(crop(frame, x: x, y: y, w: s, h: s) == Icon.laundry.image.art(.large))
        let bar = (x..<(x + s)).map { frame[$0, y + s + 3] }
        #expect(bar.prefix(16).allSatisfy { $0 } && !bar[17], "half solid, then dotted")
    }

    @Test func digitsStayLeftToRightAndLabelsFollowTheLanguage() throws {
        let r = try Shared.get()
        let en = try until(PushedContent(endsAt: t0 + .seconds(754), text: "Rinsing"))
        let ar = try until(PushedContent(endsAt: t0 + .seconds(754), text: "شطف"), title: "غسيل", language: "ar")
        let enRegion = try #require(r.timeRegion(en, presentation: .expanded, now: t0, size: .w128h64))
        let arRegion = try #require(r.timeRegion(ar, presentation: .expanded, now: t0, size: .w128h64))
        let e = r.render([en], presentation: .expanded, now: t0, size: .w128h64)
        let a = r.render([ar], presentation: .expanded, now: t0, size: .w128h64)
        #expect(crop(e, x: enRegion.x, y: enRegion.y, w: enRegion.width, h: enRegion.height)
                == crop(a, x: arRegion.x, y: arRegion.y, w: arRegion.width, h: arRegion.height), "the same digits, not mirrored")
        // English: the title starts at the left of the bottom row; Arabic: the text is there instead.
        let leftEn = crop(e, x: 2, y: 48, w: 20, h: 16).joined().contains("#")
        let leftAr = crop(a, x: 2, y: 48, w: 20, h: 16).joined().contains("#")
        #expect(leftEn && leftAr)
        #expect(crop(e, x: 2, y: 48, w: 40, h: 16) != crop(a, x: 2, y: 48, w: 40, h: 16))
    }

    @Test func aCustomIconIsDrawnAsSent() throws {
        let r = try Shared.get()
        // P4 16×16: a frame with a dot in the middle, rows of two bytes.
        var bytes = Array("P4\n16 16\n".utf8)
        for y in 0..<16 {
            let row: UInt16 = y == 0 || y == 15 ? 0xFFFF : (y == 7 || y == 8 ? 0x8181 | 0x0180 : 0x8001)
            bytes += [UInt8(row >> 8), UInt8(row & 0xFF)]
        }
        let base64 = TestPictures.base64(bytes)
        let a = try until(PushedContent(endsAt: t0 + .seconds(60)), icon: .custom(base64: base64))
        let frame = r.render([a], presentation: .compact, now: t0, size: .w128h32)
        let drawn = crop(frame, x: 2, y: (29 - 16) / 2, w: 16, h: 16)
        #expect(drawn.first == String(repeating: "#", count: 16))
        #expect(drawn[1] == "#" + String(repeating: ".", count: 14) + "#")
        #expect(drawn[7] == "#......##......#")
    }

    @Test func aCustomIconThatDoesNotDecodeShowsTheKindsBell() throws {
        let r = try Shared.get()
        // Well-formed base64 of "P4\n40 40\n": a size no icon has (a peer's record is not checked as a request is).
        let a = try until(PushedContent(endsAt: t0 + .seconds(60)), icon: .custom(base64: TestPictures.base64(Array("P4\n40 40\n".utf8))))
        for _ in 0..<2 {
            let frame = r.render([a], presentation: .compact, now: t0, size: .w128h32)
            #expect(crop(frame, x: 2, y: (29 - 16) / 2, w: 16, h: 16) == Icon.bell.image.art(.medium))
        }
    }

    @Test func thePersonsSessionOutranksWhatTheHomePushesAndTheMostRecentLeadsOnATie() throws {
        let meditation = try PropertyTests.countdown(minutes: 20)
        let laundry = try until(PushedContent(endsAt: t0 + .seconds(900)))
        let oven = try #require(try TimerMachine.apply(.start(ActivityAttributes(timerID: "oven", kind: .until(PushedContent()), relevance: 50)),
                                                       to: nil, now: t0 + .seconds(5)).activity)
        let scene = PresentationPolicy().scene(of: [meditation, laundry, oven], now: t0 + .seconds(10))
        #expect(scene?.presentation == .minimal && scene?.activities.map(\.timerID) == ["meditation", "oven"])
        let urgent = try #require(try TimerMachine.apply(.start(ActivityAttributes(timerID: "door", kind: .until(PushedContent()), relevance: 100)),
                                                         to: nil, now: t0 + .seconds(8)).activity)
        #expect(PresentationPolicy().scene(of: [meditation, urgent, oven], now: t0 + .seconds(10))?.activities.map(\.timerID) == ["door", "meditation"])
    }
}
