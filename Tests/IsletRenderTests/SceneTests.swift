import IsletFrame
@testable import IsletIcons
import Testing
import IsletCore
#if canImport(Glibc)
import Glibc
#endif
@testable import IsletRender

struct SceneTests {
    static let t0 = PropertyTests.t0

    @Test func noActivityIsADarkFrame() throws {
        let r = try Shared.get()
        var b = Bitmap(width: 128, height: 32)
        b.fill()
        r.render([], presentation: .compact, now: Self.t0, into: &b)
        #expect(b.litCount == 0)
    }

    @Test func dismissedActivityIsADarkFrame() throws {
        let r = try Shared.get()
        let a = try PropertyTests.countdown(minutes: 5)
        let ended = try #require(try TimerMachine.apply(.end(.after(Self.t0 + .seconds(10))), to: a, now: Self.t0).activity)
        #expect(r.render([ended], presentation: .compact, now: Self.t0 + .seconds(5), size: .w128h32).litCount > 0)
        #expect(r.render([ended], presentation: .compact, now: Self.t0 + .seconds(10), size: .w128h32).litCount == 0)
    }

    @Test func twoActivitiesShareThePillAsMinimal() throws {
        let r = try Shared.get()
        let timer = try PropertyTests.countdown(minutes: 5)
        let sw = try #require(try TimerMachine.apply(.start(ActivityAttributes(kind: .stopwatch)), to: nil, now: Self.t0).activity)
        let both = r.render([timer, sw], presentation: .lockscreen, now: Self.t0, size: .w128h32)
        // Each half is 64 px with a 1 px margin: the meditation figure at x 1 (raised 2 px
        // for its progress line below), the stopwatch at x 128-1-16 = 111, centred at y 8.
        // Whatever the presentation asked, no time digits.
        let iconRows = { (icon: Icon) in icon.art(.medium).joined() }
        #expect(crop(both, x: 1, y: 6, w: 16, h: 16).joined() == iconRows(.meditation))
        #expect(crop(both, x: 111, y: 8, w: 16, h: 16).joined() == iconRows(.stopwatch))
        #expect(crop(both, x: 20, y: 0, w: 88, h: 32).joined().allSatisfy { $0 == "." })
        // Swapped order swaps the sides.
        let swapped = r.render([sw, timer], presentation: .compact, now: Self.t0, size: .w128h32)
        #expect(crop(swapped, x: 1, y: 8, w: 16, h: 16).joined() == iconRows(.stopwatch))
        #expect(crop(swapped, x: 111, y: 6, w: 16, h: 16).joined() == iconRows(.meditation))
    }

    @Test func pausedPastTheOldEndStillShowsTheFrozenTime() throws {
        let r = try Shared.get()
        let a = try PropertyTests.countdown(minutes: 5)
        let paused = try #require(try TimerMachine.apply(.pause, to: a, now: Self.t0 + .seconds(60)).activity)
        let late = r.render([paused], presentation: .compact, now: Self.t0 + .seconds(3600), size: .w96h16)
        #expect(crop(late, x: 94 - 32, y: 0, w: 32, h: 16) == GlyphArtTests.strip("4:00"))
    }

    @Test func runningPastTheEndShowsZero() throws {
        let r = try Shared.get()
        let a = try PropertyTests.countdown(minutes: 5)
        let b = r.render([a], presentation: .compact, now: Self.t0 + .seconds(400), size: .w96h16)
        #expect(crop(b, x: 94 - 32, y: 0, w: 32, h: 16) == GlyphArtTests.strip("0:00"))
    }

    @Test func dimmingThinsTheDigitsAndDropsTheProgressLine() throws {
        let r = try Shared.get()
        let a = try PropertyTests.countdown(minutes: 20)
        let now = Self.t0 + .seconds(300)
        let normal = r.render([a], presentation: .compact, now: now, size: .w128h32)
        let dim = r.render([a], presentation: .compact, now: now, size: .w128h32, options: RenderOptions(dimLevel: 0x08))
        #expect(dim.litCount < normal.litCount)
        #expect(crop(dim, x: 0, y: 29, w: 128, h: 3).joined().allSatisfy { $0 == "." })
    }

    @Test func missingFontNamesTheDebianPackage() {
        #expect(throws: FontError.missing(path: "/nonexistent-islet-fonts/unifont.pcf.gz", debianPackage: "xfonts-unifont")) {
            _ = try Renderer(fontDirectory: "/nonexistent-islet-fonts")
        }
        let text = FontError.missing(path: "/x/ter-u32b_unicode.pcf.gz", debianPackage: "xfonts-terminus").description
        #expect(text.contains("apt-get install xfonts-terminus") && text.contains("ISLET_FONT_DIR"))
    }

    @Test func terminalPreviewUsesHalfBlocks() {
        // Rows 0–1 make the first line, row 2 (and the missing row 3) the second.
        let b = Bitmap(ascii: ["#.#.", "##..", ".#.#"])
        #expect(TerminalPreview.render(b) == "█▄▀ \n ▀ ▀\n")
    }
}

extension SceneTests {
    /// With only Unifont in the font directory, Terminus comes from fonts-terminus-otb (the
    /// same design as OTB strikes): the frames must not change.
    @Test(.enabled(if: access("/usr/share/fonts/opentype/terminus/terminus-bold.otb", R_OK) == 0))
    func terminusFromOTBDrawsTheSameFrames() throws {
        let dir = "/tmp/islet-otb-test-\(getpid())"
        mkdir(dir, 0o755)
        defer { unlink(dir + "/unifont.pcf.gz"); rmdir(dir) }
        #expect(symlink(FontFiles.defaultDirectory + "/unifont.pcf.gz", dir + "/unifont.pcf.gz") == 0)
        let otb = try Renderer(fontDirectory: dir)
        for args in [["--size", "128x64", "--presentation", "lockscreen"], ["--size", "96x16"], ["--stopwatch", "--elapsed", "4000"]] {
            let req = try request(args)
            // The shared renderer outside #expect: Swift 6.0's macro cannot take a `try` there.
            let shared = try Shared.get()
            #expect(RenderCommand.render(req, with: otb) == RenderCommand.render(req, with: shared), "\(args)")
        }
    }
}

extension SceneTests {
    /// §2: on a pill-sized panel the expanded view's extra regions stay empty, and the lock
    /// screen belongs to panels 64 px tall and up: both draw the compact frame there.
    @Test(arguments: [PanelSize.w128h32, .w96h16, .w64h32, .w72h40])
    func pillSizedPanelsShowCompact(size: PanelSize) throws {
        for state in ["running", "paused", "cycle-end", "complete"] {
            let base = ["--state", state, "--size", "\(size)", "--cycle", "1", "--cycles", "2"]
            let compact = try frame(base)
            #expect(try frame(base + ["--presentation", "expanded"]) == compact, "\(state)")
            #expect(try frame(base + ["--presentation", "lockscreen"]) == compact, "\(state)")
        }
    }

    /// A right-to-left language right-aligns even a label without letters ("2/3" on 64×128).
    @Test func shortCycleLabelFollowsTheLanguageDirection() throws {
        let args = ["--presentation", "lockscreen", "--size", "64x128", "--cycle", "2", "--cycles", "3"]
        let en = try frame(args), he = try frame(args + ["--language", "he"])
        // The rows where English shows only "2/3", at the left margin.
        let rows = (0..<128).filter { y in
            let lit = (0..<64).filter { en[$0, y] }
            return (lit.min() ?? 99) <= 8 && (lit.max() ?? 99) < 24
        }
        #expect(!rows.isEmpty)
        let heLit = (0..<64).filter { x in rows.contains { he[x, $0] } }
        #expect((heLit.min() ?? 0) >= 40 && (heLit.max() ?? 0) >= 58, "rows \(rows), lit \(heLit)")
    }
}

extension SceneTests {
    /// §1 and §2: the labelled presentations on 128×64 show the cycle label *and* the state in
    /// every language. The label row must change when only the cycle number changes (the cycle
    /// is shown, long or as "2/3") and must differ from the running row (the state is shown).
    /// The one exception is a design decision: Arabic "اكتملت الدورة" (cycle complete) is too
    /// wide to share the row even with "2/3", so that cell shows the state alone.
    @Test(arguments: [Presentation.lockscreen, .expanded])
    func labelRowShowsCycleAndStateInEveryLanguage(presentation: Presentation) throws {
        func labelRow(_ b: Bitmap) -> [String] { crop(b, x: 0, y: 48, w: 128, h: 16) }
        for language in Localization.languages {
            let base = ["--presentation", presentation.rawValue, "--size", "128x64", "--language", language,
                        "--duration", "1200", "--remaining", "754", "--cycles", "3"]
            let running = labelRow(try frame(base + ["--state", "running", "--cycle", "2"]))
            for state in ["paused", "cycle-end", "complete"] {
                let two = labelRow(try frame(base + ["--state", state, "--cycle", "2"]))
                let one = labelRow(try frame(base + ["--state", state, "--cycle", "1"]))
                let showsState = two != running, showsCycle = two != one
                #expect(showsState, "\(language) \(state): the state word is missing")
                if language == "ar" && state == "cycle-end" {
                    #expect(!showsCycle, "ar cycle-end is documented as state-only")
                } else {
                    #expect(showsCycle, "\(language) \(state): the cycle label was dropped")
                }
            }
        }
    }
}

extension SceneTests {
    /// A title is free text (up to 64 characters, any script): on the lock screen it is shortened
    /// to fit, never cut by the panel's edge. The title row keeps its 2 px margins on both sides
    /// and still shows text; a title that fits is drawn whole (it differs from a shortened one).
    @Test(arguments: [
        (["--size", "128x64", "--title", "Evening sit with the whole family"], 0..<16),
        (["--size", "64x128", "--title", "Evening sit"], 32..<48),
        (["--size", "64x128", "--language", "ar", "--stopwatch", "--elapsed", "5"], 32..<48),
        (["--size", "128x64", "--language", "ja", "--stopwatch", "--elapsed", "5"], 0..<16),
    ])
    func longTitlesAreShortenedNotClipped(args: [String], titleRows: Range<Int>) throws {
        let b = try frame(args + ["--presentation", "lockscreen"])
        let lit = (0..<b.width).filter { x in titleRows.contains { b[x, $0] } }
        #expect(!lit.isEmpty, "\(args): the title row is empty")
        #expect((lit.min() ?? 0) >= 2 && (lit.max() ?? b.width) <= b.width - 3, "\(args): title touches the edge, columns \(lit.min() ?? -1)–\(lit.max() ?? -1)")
    }

    @Test func aTitleThatFitsIsDrawnWhole() throws {
        let base = ["--size", "128x64", "--presentation", "lockscreen"]
        let short = try frame(base + ["--title", "Evening sit"])
        let longer = try frame(base + ["--title", "Evening sit with the whole family"])
        let rows = 0..<16
        let shortLit = (0..<128).filter { x in rows.contains { short[x, $0] } }
        let longLit = (0..<128).filter { x in rows.contains { longer[x, $0] } }
        // "Evening sit" in 8 px Terminus 16 cells is 88 px wide; the long one fills the row.
        #expect((shortLit.max() ?? 0) < 92 && (longLit.max() ?? 0) > 110)
    }
}

extension SceneTests {
    /// §2 compact: the time is "sized to fit" on every named panel, for every cycle length the core
    /// accepts (up to 24 h: h:mm:ss with two hour digits). The digits stay inside the panel, and
    /// no icon pixel falls inside the digits' box: running and paused (different icons, the same
    /// digits) draw that box identically.
    @Test(arguments: PanelSize.all)
    func compactTimeNeverRunsIntoTheIconOrOffThePanel(size: PanelSize) throws {
        let r = try Shared.get()
        for duration in [59, 599, 3599, 35_999, 86_400] {
            let base = ["--size", "\(size)", "--duration", "\(duration)", "--remaining", "\(duration - 1)"]
            let running = try request(base)
            let (activity, now) = RenderCommand.scene(running)
            let a = try #require(activity)
            let box = try #require(r.timeRegion(a, presentation: .compact, now: now, size: size))
            #expect(box.x >= 0 && box.x + box.width <= size.width && box.y >= 0 && box.y + box.height <= size.height,
                    "\(size) \(duration) s: digits at \(box) leave the panel")
            let f1 = try frame(base)
            let f2 = try frame(base + ["--state", "paused"])
            let same = crop(f1, x: box.x, y: box.y, w: box.width, h: box.height) == crop(f2, x: box.x, y: box.y, w: box.width, h: box.height)
            #expect(same, "\(size) \(duration) s: the icon reaches into the digits")
        }
    }
}
