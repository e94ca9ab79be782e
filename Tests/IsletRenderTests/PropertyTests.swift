import IsletTestSupport
import IsletFrame
import Testing
import IsletCore
@testable import IsletRender

/// The properties of the issue (§4), over randomized scenes. Each randomized test prints its
/// seed on failure; replay with ISLET_FUZZ_SEED, scale with ISLET_FUZZ_ITERATIONS.
struct PropertyTests {
    static let t0 = Instant(milliseconds: 1_800_000_000_000)

    static func countdown(minutes: Int, cycles: Int = 3, language: String = "en", at t: Instant = t0) throws -> Activity {
        let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(minutes * 60), cycles: cycles), language: language)
        return try #require(try TimerMachine.apply(.start(attrs), to: nil, now: t).activity)
    }

    @Test(arguments: [(Presentation.compact, PanelSize.w128h32), (.expanded, .w128h64), (.lockscreen, .w128h64),
                      (.lockscreen, .w128h128), (.compact, .w64h48), (.lockscreen, .w64h128)])
    func digitsRegionIsTheSameInEveryLanguage(presentation: Presentation, size: PanelSize) throws {
        let r = try Shared.get()
        let now = Self.t0 + .milliseconds(437_250)
        var reference: [String]?
        for language in Localization.languages {
            let a = try Self.countdown(minutes: 20, language: language)
            let region = try #require(r.timeRegion(a, presentation: presentation, now: now, size: size))
            let b = r.render([a], presentation: presentation, now: now, size: size)
            let digits = crop(b, x: region.x, y: region.y, w: region.width, h: region.height)
            #expect(digits.joined().contains("#"))
            if let ref = reference {
                #expect(digits == ref, "\(language) draws the time differently")
            } else {
                reference = digits
            }
        }
    }

    @Test func pausedFrameDoesNotChangeAsTimePasses() throws {
        let r = try Shared.get()
        let s = seed()
        var rng = SplitMix(state: s)
        for _ in 0..<fuzzIterations(40) {
            let start = Self.t0 + .milliseconds(Int64.random(in: 0...1_000_000, using: &rng))
            let a = try Self.countdown(minutes: Int.random(in: 1...90, using: &rng), at: start)
            let pauseAt = start + .milliseconds(Int64.random(in: 0...60_000, using: &rng))
            let paused = try #require(try TimerMachine.apply(.pause, to: a, now: pauseAt).activity)
            let p = Presentation.allCases.randomElement(using: &rng) ?? .compact
            let size = PanelSize.all.randomElement(using: &rng) ?? .w128h32
            let first = r.render([paused], presentation: p, now: pauseAt, size: size)
            // Long after the old end instant too: the render path checks paused first.
            let later = pauseAt + .milliseconds(Int64.random(in: 1...(10 * 3_600_000), using: &rng))
            #expect(r.render([paused], presentation: p, now: later, size: size) == first, "seed \(s)")
        }
    }

    @Test(arguments: [false, true])
    func runningFrameChangesExactlyWhenTheShownSecondChanges(stopwatch: Bool) throws {
        let r = try Shared.get()
        let s = seed()
        var rng = SplitMix(state: s)
        let attrs = stopwatch ? ActivityAttributes(kind: .stopwatch)
            : ActivityAttributes(kind: .countdown(cycle: .seconds(25 * 60), cycles: 1))
        let start = Self.t0 + .milliseconds(Int64.random(in: 0...999, using: &rng))
        let a = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: start).activity)
        for _ in 0..<fuzzIterations(30) {
            let p = Presentation.allCases.randomElement(using: &rng) ?? .compact
            guard p != .minimal else { continue }   // the minimal presentation shows no time
            let size = PanelSize.all.randomElement(using: &rng) ?? .w128h32
            let t1 = start + .milliseconds(Int64.random(in: 0...(20 * 60_000), using: &rng))
            let t2 = t1 + .milliseconds(Int64.random(in: 1...2500, using: &rng))
            let same = ShownTime.seconds(of: a, at: t1) == ShownTime.seconds(of: a, at: t2)
            let f1 = r.render([a], presentation: p, now: t1, size: size)
            let f2 = r.render([a], presentation: p, now: t2, size: size)
            #expect((f1 == f2) == same, "seed \(s): \(p) \(size) at \(t1) and \(t2)")
        }
    }

    @Test func renderingNeverWritesOutsideThePanel() throws {
        let r = try Shared.get()
        let s = seed()
        var rng = SplitMix(state: s)
        for _ in 0..<fuzzIterations(60) {
            let w = Int.random(in: 8...256, using: &rng), h = Int.random(in: 8...256, using: &rng)
            let a = try Self.countdown(minutes: Int.random(in: 1...600, using: &rng),
                                       language: Localization.languages.randomElement(using: &rng) ?? "en")
            let now = Self.t0 + .milliseconds(Int64.random(in: 0...100_000, using: &rng))
            let options = RenderOptions(shiftX: Int.random(in: -3...3, using: &rng), shiftY: Int.random(in: -3...3, using: &rng))
            let p = Presentation.allCases.randomElement(using: &rng) ?? .compact
            var b = Bitmap(width: w, height: h)
            r.render([a], presentation: p, now: now, options: options, into: &b)
            #expect(b.width == w && b.height == h && b.bytes.count == w * ((h + 7) / 8), "seed \(s)")
            // Rows past the height in the last page stay dark (the panel has no such rows).
            if h % 8 != 0 {
                let mask = UInt8(0xFF) << UInt8(h % 8)
                for x in 0..<w { #expect(b.byte(page: h / 8, column: x) & mask == 0, "seed \(s) \(w)x\(h)") }
            }
            // Whatever the panel, the frame shows something: nothing was lost off-panel entirely.
            #expect(b.litCount > 0, "seed \(s) \(w)x\(h) \(p)")
        }
    }

    @Test func pixelShiftMovesTheWholeLayout() throws {
        let r = try Shared.get()
        let a = try Self.countdown(minutes: 20)
        let base = r.render([a], presentation: .lockscreen, now: Self.t0, size: .w128h64)
        let moved = r.render([a], presentation: .lockscreen, now: Self.t0, size: .w128h64,
                             options: RenderOptions(shiftX: 1, shiftY: -1))
        for y in 1..<64 {
            for x in 0..<127 { #expect(moved[x + 1, y - 1] == base[x, y], "pixel \(x),\(y)") }
        }
    }

    @Test func pixelShiftOrbitsOnePixelAtATime() {
        let period = Duration.seconds(180)
        var seen = Set<[Int]>()
        var last: (dx: Int, dy: Int)?
        for step in 0..<18 {
            let o = PixelShift.offset(at: Self.t0 + .seconds(180 * step), every: period, amplitude: 1)
            #expect(abs(o.dx) <= 1 && abs(o.dy) <= 1)
            if let l = last { #expect(max(abs(o.dx - l.dx), abs(o.dy - l.dy)) <= 1, "step \(step)") }
            seen.insert([o.dx, o.dy])
            last = o
        }
        #expect(seen.count == 9)
        // Within one period the offset holds; off by default.
        let a = PixelShift.offset(at: Self.t0, every: period, amplitude: 1)
        let b = PixelShift.offset(at: Self.t0 + .seconds(179), every: period, amplitude: 1)
        #expect(a == b || (Self.t0.milliseconds % 180_000) + 179_000 >= 180_000)
        #expect(PixelShift.offset(at: Self.t0, every: period, amplitude: 0) == (0, 0))
        #expect(RenderOptions() == RenderOptions(shiftX: 0, shiftY: 0, dimLevel: nil, showsProgress: true))
    }
}
