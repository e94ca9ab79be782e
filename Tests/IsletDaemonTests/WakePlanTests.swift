import IsletRender
import IsletCore
import IsletDaemon
import Testing
import IsletFrame

/// The scheduler's deadline logic with injected time: how long the loop may sleep.
@Suite("scheduler deadlines")
struct WakePlanTests {
    let t0 = Instant(milliseconds: 1_795_000_000_000)

    func countdown(_ seconds: Int64, at: Instant) throws -> Activity {
        try #require(try TimerMachine.apply(.start(ActivityAttributes(kind: .countdown(cycle: .seconds(seconds), cycles: 1))), to: nil, now: at).activity)
    }

    /// Milliseconds from `now` to the next wake-up on the timeline, nil for none. The loop arms
    /// its timerfd at that instant exactly (no rounding margin any more). The drawing is only
    /// asked for minimal scenes; these tests draw nothing there.
    func plan(_ acts: [Activity], now: Instant, policy: PresentationPolicy = PresentationPolicy()) -> Int64? {
        FrameSchedule.nextChange(activities: acts, policy: policy, now: now) { _ in Bitmap(width: 8, height: 8) }
            .map { ($0 - now).wholeMilliseconds }
    }

    @Test("idle sleeps until an event")
    func idle() { #expect(plan([], now: t0) == nil) }

    @Test("running wakes when the shown second changes")
    func running() throws {
        let a = try countdown(60, at: t0)
        // 60 s countdown shows 1:00 until 1 s has passed (remaining rounds up), so the next
        // change is at t0 + 1000 ms; 250 ms in, that is 750 ms away.
        #expect(plan([a], now: t0 + .milliseconds(250)) == 750)
        #expect(plan([a], now: t0 + .milliseconds(59_900)) == 100, "the last second ends at completion")
    }

    @Test("paused has no periodic wake-up, only the 8 h activity limit")
    func paused() throws {
        let a = try TimerMachine.apply(.pause, to: countdown(60, at: t0), now: t0 + .seconds(3)).activity
        // Live Activities end an activity after 8 h (LIVE-ACTIVITIES.md): the one deadline left.
        let eightHours: Int64 = 8 * 3600 * 1000
        #expect(plan([try #require(a)], now: t0 + .seconds(3)) == eightHours - 3000)
        #expect(plan([try #require(a)], now: t0 + .seconds(7200)) == eightHours - 7_200_000,
                "even past the old end instant: no second ticks")
    }

    @Test("an until activity wakes each shown second to its source's end, then never; without an end, never")
    func until() throws {
        func start(_ p: PushedContent) throws -> Activity {
            try #require(try TimerMachine.apply(.start(ActivityAttributes(timerID: "laundry", kind: .until(p))), to: nil, now: t0).activity)
        }
        let eightHours: Int64 = 8 * 3600 * 1000
        let timed = try start(PushedContent(endsAt: t0 + .seconds(90)))
        // 90 s ahead shows 1:30 until 1 s has passed: 250 ms in, the next change is 750 ms away.
        #expect(plan([timed], now: t0 + .milliseconds(250)) == 750)
        // Past its end it shows 0:00 and nothing visible changes until the 8 h limit.
        #expect(plan([timed], now: t0 + .seconds(95)) == eightHours - 95_000)
        // Progress only: what is shown changes when the source says so, never by the clock.
        let progress = try start(PushedContent(progress: 0.3, text: "Drying"))
        #expect(plan([progress], now: t0 + .seconds(1)) == eightHours - 1000)
    }

    @Test("complete wakes for its dismissal 3 s after the end")
    func complete() throws {
        let a = try countdown(10, at: t0)
        let done = try #require(TimerMachine.advance(a, to: t0 + .seconds(10)).activity)
        #expect(done.phase == .complete)
        #expect(plan([done], now: t0 + .seconds(11)) == 2000)
    }

    @Test("the earliest of the activities' changes and the expand's end wins")
    func earliest() throws {
        let a = try TimerMachine.apply(.pause, to: countdown(60, at: t0), now: t0).activity
        var policy = PresentationPolicy()
        policy.expandedUntil = t0 + .seconds(5)
        #expect(plan([try #require(a)], now: t0, policy: policy) == 5000)
        var running = try countdown(60, at: t0)
        running.attributes.timerID = "other"
        policy.expandedTimer = try #require(a).timerID
        #expect(plan([try #require(a), running], now: t0 + .milliseconds(300), policy: policy) == 4_700,
                "expanded shows the paused one: the expand ends first; the hidden running one does not wake the loop each second")
    }

    @Test("presentation policy: one compact, two minimal, expand for a while, none dark")
    func policy() throws {
        let a = try countdown(60, at: t0)
        var b = try countdown(30, at: t0)
        b.attributes.timerID = "b"
        var p = PresentationPolicy()
        #expect(p.scene(of: [], now: t0) == nil)
        #expect(p.scene(of: [a], now: t0)?.presentation == .compact)
        #expect(p.scene(of: [a, b], now: t0)?.presentation == .minimal)
        #expect(p.scene(of: [a, b], now: t0)?.activities.count == 2)
        p.expandedUntil = t0 + .seconds(5)
        p.expandedTimer = "meditation"
        #expect(p.scene(of: [a, b], now: t0 + .seconds(4))?.presentation == .expanded)
        #expect(p.scene(of: [a, b], now: t0 + .seconds(4))?.activities.map(\.timerID) == ["meditation"])
        #expect(p.scene(of: [a, b], now: t0 + .seconds(5))?.presentation == .minimal)
    }

    @Test("pixel shift: off costs no wake-up; on moves by at most a pixel once per period")
    func pixelShift() {
        let off = PixelShiftSchedule(periodMinutes: 0)
        #expect(off.nextChange(after: t0) == nil)
        let home = off.offset(at: t0)
        #expect(home.dx == 0 && home.dy == 0)
        let on = PixelShiftSchedule(periodMinutes: 10)
        let period: Int64 = 10 * 60_000
        let next = on.nextChange(after: t0)
        #expect(next.map { $0.milliseconds % period } == 0, "on a period boundary")
        #expect(next.map { $0 > t0 && ($0 - t0).wholeMilliseconds <= period } == true)
        var previous = on.offset(at: t0)
        var seen = Set<String>()
        var at = t0
        for _ in 0..<20 {
            at = on.nextChange(after: at) ?? at
            let o = on.offset(at: at)
            #expect(abs(o.dx - previous.dx) <= 1 && abs(o.dy - previous.dy) <= 1, "one pixel at a time")
            #expect(abs(o.dx) <= 1 && abs(o.dy) <= 1)
            seen.insert("\(o.dx),\(o.dy)")
            previous = o
        }
        #expect(seen.count > 1, "it does move")
    }

    @Test("two minimal icons: no wake-up each second; the loop wakes when a pixel of the progress bar moves, found by drawing")
    func minimalIcons() throws {
        let renderer = try Renderer()
        func draw(_ scene: Scene) -> Bitmap {
            var f = Bitmap(width: 128, height: 32)
            renderer.render(scene, options: RenderOptions(), into: &f)
            return f
        }
        let a = try countdown(600, at: t0)
        var b = try countdown(1200, at: t0)
        b.attributes.timerID = "b"
        let policy = PresentationPolicy()
        let now = t0 + .milliseconds(300)
        #expect(policy.scene(of: [a, b], now: now)?.presentation == .minimal)
        let next = try #require(FrameSchedule.nextChange(activities: [a, b], policy: policy, now: now, draw: draw))
        #expect((next - now).wholeMilliseconds > 1000, "not every second: minimal icons show no digits")
        // The oracle: draw every second boundary in turn until the picture changes.
        let before = draw(try #require(policy.scene(of: [a, b], now: now)))
        var k: Int64 = 1
        var scene = try #require(policy.scene(of: [a, b], now: now))
        while k < 600 {
            scene.now = t0 + .seconds(k)
            if draw(scene) != before { break }
            k += 1
        }
        #expect(next == t0 + .seconds(k), "the first boundary whose frame differs, as drawing each one finds")
        #expect(k < 600, "the bar does move before the first countdown ends")
        // Paused, both: nothing moves until the 8 h limit.
        let pa = try #require(TimerMachine.apply(.pause, to: a, now: now).activity)
        let pb = try #require(TimerMachine.apply(.pause, to: b, now: now).activity)
        let paused = try #require(FrameSchedule.nextChange(activities: [pa, pb], policy: policy, now: now, draw: draw))
        #expect((paused - now).wholeMilliseconds > 7 * 3600 * 1000)
    }
}
