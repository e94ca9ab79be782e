import IsletRender
import IsletCore
import IsletDaemon
import Testing

/// The scheduler's deadline logic with injected time: how long the loop may sleep.
@Suite("scheduler deadlines")
struct WakePlanTests {
    let t0 = Instant(milliseconds: 1_795_000_000_000)

    func countdown(_ seconds: Int64, at: Instant) throws -> Activity {
        try #require(try TimerMachine.apply(.start(ActivityAttributes(kind: .countdown(cycle: .seconds(seconds), cycles: 1))), to: nil, now: at).activity)
    }

    /// Milliseconds from `now` to the next wake-up on the timeline, nil for none. The loop arms
    /// its timerfd at that instant exactly (no rounding margin any more).
    func plan(_ acts: [Activity], now: Instant, policy: PresentationPolicy = PresentationPolicy()) -> Int64? {
        WakePlan.next(activities: acts, policy: policy, now: now).map { ($0 - now).wholeMilliseconds }
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
        let running = try countdown(60, at: t0)
        #expect(plan([try #require(a), running], now: t0 + .milliseconds(300), policy: policy) == 700,
                "the running one's next second comes before the expand ends")
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
}
