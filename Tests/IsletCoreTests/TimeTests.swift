import Testing
import IsletCore

@Test func countdownShowsRemainingRoundedUp() throws {
    let a = try #require(started(ActivityAttributes(kind: .countdown(cycle: .seconds(300), cycles: 1))))
    // The spec: a 5-minute countdown shows 5:00 during its first second and 0:00 only at its end.
    #expect(ShownTime.seconds(of: a, at: at(0)) == 300)
    #expect(ShownTime.seconds(of: a, at: at(0.999)) == 300)
    #expect(ShownTime.seconds(of: a, at: at(1)) == 299)
    #expect(ShownTime.seconds(of: a, at: at(299.001)) == 1)
    #expect(ShownTime.seconds(of: a, at: at(300)) == 0)
    #expect(ShownTime.seconds(of: a, at: at(900)) == 0)
}

@Test func formatsTimeAsDigitsLeftToRight() {
    #expect(ShownTime.format(0) == "0:00")
    #expect(ShownTime.format(5 * 60 + 23) == "5:23")
    #expect(ShownTime.format(10 * 60 + 23) == "10:23")
    #expect(ShownTime.format(3600 + 2 * 60 + 3) == "1:02:03")
    #expect(ShownTime.format(-4) == "0:00")
}

@Test func pausedTimerPastItsOldEndShowsFrozenTimeNeverZero() throws {
    // Bug 2 of the design: a paused timer rendered 0:00 once the wall clock passed its old end.
    let paused = try #require(try TimerMachine.apply(.pause, to: started(), now: at(100)).activity)
    for later in [100.0, 299.0, 301.0, 3600.0, 7 * 3600.0] {
        let a = TimerMachine.advance(paused, to: at(later)).activity
        #expect(a?.phase == .paused, "still paused at \(later) s")
        #expect(a.map { ShownTime.seconds(of: $0, at: at(later)) } == 200)
    }
}

@Test func cyclesRunCycleEndThenTheNextCycleThenCompletion() throws {
    var a = started()
    var log: [Effect] = []
    func step(_ s: Double) { let t = TimerMachine.advance(a, to: at(s)); a = t.activity; log += t.effects }
    step(299.999); #expect(a?.phase == .running)
    step(300);     #expect(a?.phase == .cycleEnd); #expect(a?.content.cycle == 1)
    step(302.999); #expect(a?.phase == .cycleEnd)
    step(303);     #expect(a?.phase == .running); #expect(a?.content.cycle == 2)
    #expect(a.map { ShownTime.seconds(of: $0, at: at(303)) } == 300)
    step(603);     #expect(a?.phase == .cycleEnd)
    step(606);     #expect(a?.content.cycle == 3)
    step(905.999); #expect(a?.phase == .running)
    step(906);     #expect(a?.phase == .complete)   // the last cycle goes straight to COMPLETE
    step(908.999); #expect(a?.phase == .complete)   // completion stays 3 s
    step(909);     #expect(a == nil)
    #expect(log == [.cycleEnded(cycle: 1), .cycleStarted(cycle: 2), .cycleEnded(cycle: 2), .cycleStarted(cycle: 3),
                    .cycleEnded(cycle: 3), .completed, .ended(.after(at(909))), .dismissed])
}

@Test func aLateWakeUpAppliesEveryEventAtItsOwnInstant() throws {
    // Advancing from 0 straight to 700 s must land exactly where step-by-step advancing would.
    let jumped = TimerMachine.advance(started(), to: at(700)).activity
    #expect(jumped?.content.cycle == 3)
    #expect(jumped?.content.display == .running(reference: at(906)))
}

@Test func openEndedCountdownKeepsCyclingUntilTheEightHourLimit() throws {
    let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: nil), cycleEndInterval: .zero)
    let a = TimerMachine.advance(started(attrs), to: at(3600 - 0.5)).activity
    #expect(a?.content.cycle == 60)
    #expect(a?.content.totalCycles == nil)
    let limit = TimerMachine.advance(started(attrs), to: at(8 * 3600)).activity
    #expect(limit?.phase == .complete)
    #expect(limit?.ending?.policy == .default)
    #expect(limit?.ending?.dismissAt == at(12 * 3600))       // default linger: 4 h
    #expect(TimerMachine.advance(limit, to: at(12 * 3600)).activity == nil)
}

@Test func dismissalPoliciesAreCappedAtFourHours() {
    let end = at(10)
    #expect(DismissalPolicy.immediate.dismissalInstant(endedAt: end) == end)
    #expect(DismissalPolicy.default.dismissalInstant(endedAt: end) == end + .seconds(4 * 3600))
    #expect(DismissalPolicy.after(end + .seconds(60)).dismissalInstant(endedAt: end) == end + .seconds(60))
    #expect(DismissalPolicy.after(end + .seconds(5 * 3600)).dismissalInstant(endedAt: end) == end + .seconds(4 * 3600))
    #expect(DismissalPolicy.after(end - .seconds(60)).dismissalInstant(endedAt: end) == end)
}

@Test func userResetDismissesAtOnce() throws {
    // Bug 3: a reset activity lingered for hours. Reset ends it and it is gone in the same transition.
    let t = try TimerMachine.apply(.reset, to: started(), now: at(10))
    #expect(t.activity == nil)
    #expect(t.effects == [.ended(.immediate), .dismissed])
}

@Test func staleAfterMarksContentStaleAndAnUpdateClearsIt() throws {
    let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 1), staleAfter: .seconds(60))
    var a = started(attrs)
    #expect(a.flatMap { ShownTime.nextDeadline(of: $0, after: at(59.5)) }?.at == at(60))
    a = TimerMachine.advance(a, to: at(60)).activity
    #expect(a?.content.isStale == true)
    a = try TimerMachine.apply(.pause, to: a, now: at(70)).activity
    #expect(a?.content.isStale == false)
    #expect(a?.staleAt == at(130))
}

@Test func deadlinesFollowTheShownSecondAndNothingWhilePaused() throws {
    let a = try #require(started())
    // Remaining 300 s shows 5:00 until 1 s has passed: the first change is at 1 s.
    #expect(ShownTime.nextDeadline(of: a, after: at(0))?.at == at(1))
    #expect(ShownTime.nextDeadline(of: a, after: at(1))?.at == at(2))
    #expect(ShownTime.nextDeadline(of: a, after: at(1.25))?.at == at(2))
    #expect(ShownTime.nextDeadline(of: a, after: at(299.5))?.at == at(300))
    #expect(ShownTime.nextDeadline(of: a, after: at(299.5))?.reason == .event(.cycleEnded))
    // Paused: the only deadline left is the one-shot 8 h activity limit, not a periodic tick.
    let paused = try #require(try TimerMachine.apply(.pause, to: a, now: at(100.3)).activity)
    let d = ShownTime.nextDeadline(of: paused, after: at(100.3))
    #expect(d == Deadline(at: at(8 * 3600), reason: .event(.lifetimeLimit)))
    // Stopwatch: changes on whole elapsed seconds.
    let sw = try #require(started(stopwatch))
    #expect(ShownTime.nextDeadline(of: sw, after: at(0.4))?.at == at(1))
    #expect(ShownTime.nextDeadline(of: sw, after: at(1))?.at == at(2))
}

@Test func stopwatchKeepsAccumulatedTimeAcrossManyPauses() throws {
    var a = started(stopwatch)
    var now = t0
    var expected: Int64 = 0  // accumulated running milliseconds, tracked independently
    for i in 0..<200 {
        let run = Int64(i % 7) * 370 + 11, rest = Int64(i % 5) * 1300 + 500
        now = now + .milliseconds(run); expected += run
        a = try TimerMachine.apply(.pause, to: a, now: now).activity
        #expect(a?.content.display == .paused(frozen: .milliseconds(expected)))
        now = now + .milliseconds(rest)
        a = try TimerMachine.apply(.resume, to: a, now: now).activity
    }
    let shown = a.map { ShownTime.seconds(of: $0, at: now) }
    #expect(shown == Int(expected / 1000))  // elapsed rounds down
}

/// Issue 13 §1: a countdown never shows more than its cycle, whatever the clock says (a clock
/// behind the end reference used to show 1:09:36 for a 10-minute countdown, and a pause froze it).
@Test func aCountdownNeverShowsMoreThanItsCycle() throws {
    let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 1))
    let started = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: t0).activity)
    let anHourEarlier = t0 - .seconds(3600)
    #expect(ShownTime.seconds(of: started, at: anHourEarlier) == 600)
    #expect(ShownTime.exact(of: started, at: anHourEarlier) == .seconds(600))
    let paused = try #require(try TimerMachine.apply(.pause, to: started, now: anHourEarlier).activity)
    #expect(paused.content.display == .paused(frozen: .seconds(600)))
    // A right clock is untouched by the bound.
    #expect(ShownTime.seconds(of: started, at: t0 + .seconds(1)) == 599)
}
