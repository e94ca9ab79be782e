import Testing
import IsletCore

/// Every (state, intent) pair of the table in README.md: a new phase, or a typed rejection.
enum Outcome: Equatable, CustomStringConvertible {
    case to(Phase)
    case rejected(Rejection.Code)
    var description: String {
        switch self {
        case .to(let p): "→ \(p.rawValue)"
        case .rejected(let c): "rejected \(c.rawValue)"
        }
    }
}

enum IntentName: String, CaseIterable, CustomStringConvertible {
    case start, pause, resume, toggle, reset, endImmediate, endDefault, endAfter, expand, markStale, markFresh
    case update, updateAlert, startUntil
    var description: String { rawValue }
    func intent(now: Instant) -> Intent {
        switch self {
        case .start: .start(threeCycles)
        case .pause: .pause
        case .resume: .resume
        case .toggle: .toggle(default: threeCycles)
        case .reset: .reset
        case .endImmediate: .end(.immediate)
        case .endDefault: .end(.default)
        case .endAfter: .end(.after(now + .seconds(3)))
        case .expand: .expand
        case .markStale: .markStale
        case .markFresh: .markFresh
        case .update: .update(ContentUpdate(endsAt: .set(now + .seconds(600)), progress: .set(0.5), text: .set("Rinsing")))
        case .updateAlert: .update(ContentUpdate(alert: true))
        case .startUntil: .start(laundry)
        }
    }
}

let table: [Fixture: [IntentName: Outcome]] = [
    .idle: [
        .start: .to(.running), .pause: .rejected(.noActivity), .resume: .rejected(.noActivity),
        .toggle: .to(.running), .reset: .rejected(.noActivity), .endImmediate: .rejected(.noActivity),
        .endDefault: .rejected(.noActivity), .endAfter: .rejected(.noActivity),
        .expand: .rejected(.noActivity), .markStale: .rejected(.noActivity),
        .markFresh: .rejected(.noActivity),
        .update: .rejected(.noActivity), .updateAlert: .rejected(.noActivity), .startUntil: .to(.running),
    ],
    .running: [
        .start: .to(.running), .pause: .to(.paused), .resume: .rejected(.alreadyRunning),
        .toggle: .to(.paused), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.running), .markStale: .to(.running), .markFresh: .to(.running),
        .update: .rejected(.kindMismatch), .updateAlert: .rejected(.kindMismatch), .startUntil: .to(.running),
    ],
    .paused: [
        .start: .to(.running), .pause: .rejected(.alreadyPaused), .resume: .to(.running),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.paused), .markStale: .to(.paused), .markFresh: .to(.paused),
        .update: .rejected(.kindMismatch), .updateAlert: .rejected(.kindMismatch), .startUntil: .to(.running),
    ],
    .cycleEnd: [
        .start: .to(.running), .pause: .to(.paused), .resume: .rejected(.notPaused),
        .toggle: .to(.paused), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.cycleEnd), .markStale: .to(.cycleEnd), .markFresh: .to(.cycleEnd),
        .update: .rejected(.kindMismatch), .updateAlert: .rejected(.kindMismatch), .startUntil: .to(.running),
    ],
    .complete: [
        .start: .to(.running), .pause: .rejected(.alreadyComplete), .resume: .rejected(.alreadyComplete),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.complete), .markStale: .to(.complete), .markFresh: .to(.complete),
        .update: .rejected(.kindMismatch), .updateAlert: .rejected(.kindMismatch), .startUntil: .to(.running),
    ],
    .stopwatchRunning: [
        .start: .to(.running), .pause: .to(.paused), .resume: .rejected(.alreadyRunning),
        .toggle: .to(.paused), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.running), .markStale: .to(.running), .markFresh: .to(.running),
        .update: .rejected(.kindMismatch), .updateAlert: .rejected(.kindMismatch), .startUntil: .to(.running),
    ],
    .stopwatchPaused: [
        .start: .to(.running), .pause: .rejected(.alreadyPaused), .resume: .to(.running),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.paused), .markStale: .to(.paused), .markFresh: .to(.paused),
        .update: .rejected(.kindMismatch), .updateAlert: .rejected(.kindMismatch), .startUntil: .to(.running),
    ],
    .stopwatchComplete: [
        .start: .to(.running), .pause: .rejected(.alreadyComplete), .resume: .rejected(.alreadyComplete),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.complete), .markStale: .to(.complete), .markFresh: .to(.complete),
        .update: .rejected(.kindMismatch), .updateAlert: .rejected(.kindMismatch), .startUntil: .to(.running),
    ],
    // Its source owns the end: nothing here pauses it; updates change it in place.
    .untilRunning: [
        .start: .to(.running), .pause: .rejected(.notApplicable), .resume: .rejected(.notApplicable),
        .toggle: .rejected(.notApplicable), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.running), .markStale: .to(.running), .markFresh: .to(.running),
        .update: .to(.running), .updateAlert: .to(.running), .startUntil: .to(.running),
    ],
    .untilComplete: [
        .start: .to(.running), .pause: .rejected(.alreadyComplete), .resume: .rejected(.alreadyComplete),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.complete), .markStale: .to(.complete), .markFresh: .to(.complete),
        .update: .rejected(.alreadyComplete), .updateAlert: .rejected(.alreadyComplete), .startUntil: .to(.running),
    ],
]

@Test(arguments: Fixture.allCases, IntentName.allCases)
func transitionTable(_ state: Fixture, _ name: IntentName) throws {
    let expected = try #require(table[state]?[name], "the table has no row for \(state) × \(name)")
    let before = state.activity
    if state != .idle { #expect(before?.phase != nil, "fixture \(state) could not be built") }
    let now = state.now
    let outcome: Outcome
    do {
        let t = try TimerMachine.apply(name.intent(now: now), to: before, now: now)
        outcome = .to(t.phase)
        #expect(!t.effects.isEmpty || name == .markStale || name == .markFresh, "a transition reports what it did")
    } catch {
        outcome = .rejected(error.code)
        #expect(!error.message.isEmpty)
    }
    #expect(outcome == expected, "\(state) × \(name)")
}

@Test func fixturesAreInTheirStates() {
    let phases: [Fixture: Phase] = [.idle: .idle, .running: .running, .paused: .paused, .cycleEnd: .cycleEnd,
                                    .complete: .complete, .stopwatchRunning: .running,
                                    .stopwatchPaused: .paused, .stopwatchComplete: .complete,
                                    .untilRunning: .running, .untilComplete: .complete]
    for f in Fixture.allCases { #expect((f.activity?.phase ?? .idle) == phases[f], "\(f)") }
}

@Test func rejectionsChangeNothing() throws {
    // A rejected intent throws; the caller's activity is a value, untouched by construction, and
    // applying a valid intent afterwards behaves as if the rejection never happened.
    let paused = try #require(Fixture.paused.activity)
    #expect(throws: Rejection.self) { try TimerMachine.apply(.pause, to: paused, now: at(250)) }
    let resumed = try TimerMachine.apply(.resume, to: paused, now: at(250)).activity
    // Paused at 100 s with 200 s left; resumed at 250 s, so the cycle now ends at 450 s.
    #expect(resumed?.content.display == .running(reference: at(450)))
}

@Test func startReplacesTheTimersActivityAndSaysSo() throws {
    let t = try TimerMachine.apply(.start(threeCycles), to: Fixture.paused.activity, now: at(200))
    #expect(t.effects == [.replaced, .started])
    #expect(t.activity?.startedAt == at(200))
    #expect(t.activity?.content.cycle == 1)
}

@Test func pauseDuringCycleEndHoldsTheNextCycleAtFullLength() throws {
    let t = try TimerMachine.apply(.pause, to: Fixture.cycleEnd.activity, now: at(302))
    #expect(t.activity?.content.display == .paused(frozen: .seconds(300)))
    #expect(t.activity?.content.cycle == 2)
}

@Test func invalidAttributesAreRejectedWithTheField() {
    let bad = ActivityAttributes(kind: .countdown(cycle: .zero, cycles: 1))
    #expect {
        try TimerMachine.apply(.start(bad), to: nil, now: t0)
    } throws: { ($0 as? Rejection)?.code == .invalidAttributes && "\($0)".contains("cycle length") }
    let badID = ActivityAttributes(timerID: "Bad Id!", kind: .stopwatch)
    #expect(throws: Rejection(.invalidAttributes, "timer id must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '-' or '_' (got \"Bad Id!\")")) {
        try TimerMachine.apply(.start(badID), to: nil, now: t0)
    }
}

/// The time-driven half of the table: every (state, time event) pair. A defined event names the
/// phase it leads to and the second (after t0) it is due at, worked out from the spec: a 300 s,
/// 3-cycle countdown started at 0 s ends cycle 1 at 300 s; CYCLE_END entered at 300 s lasts the
/// default 3 s; an `end(.default)` lingers 4 h (14,400 s); every active activity ends itself at
/// 8 h (28,800 s). Any pair not listed is rejected `not_due` (`no_activity` from IDLE), also
/// long after every instant, and an event fired 1 ms before its instant is `not_due` as well.
let eventTable: [Fixture: [TimeEvent: (Phase, Double)]] = [
    .idle: [:],
    // The first of three cycles: it ends into CYCLE_END, never straight into COMPLETE.
    .running: [.cycleEnded: (.cycleEnd, 300), .lifetimeLimit: (.complete, 28_800)],
    // Paused at 100 s: the pause check comes first, no cycle end however late.
    .paused: [.lifetimeLimit: (.complete, 28_800)],
    .cycleEnd: [.nextCycle: (.running, 303), .lifetimeLimit: (.complete, 28_800)],
    // Ended at 10 s with the default policy: dismissed 4 h later; the 8 h limit no longer applies.
    .complete: [.dismissal: (.idle, 10 + 14_400)],
    .stopwatchRunning: [.lifetimeLimit: (.complete, 28_800)],
    .stopwatchPaused: [.lifetimeLimit: (.complete, 28_800)],
    .stopwatchComplete: [.dismissal: (.idle, 60 + 14_400)],
    // Reaching its ends_at (3,000 s) is no event: only its source, a person or the 8 h limit end it.
    .untilRunning: [.lifetimeLimit: (.complete, 28_800)],
    .untilComplete: [.dismissal: (.idle, 90 + 14_400)],
]

@Test(arguments: Fixture.allCases, TimeEvent.allCases)
func timeEventTable(_ state: Fixture, _ event: TimeEvent) throws {
    let expected = try #require(eventTable[state])[event]
    let a = state.activity
    let farLate = at(40_000)
    guard let (phase, second) = expected else {
        let code: Rejection.Code = state == .idle ? .noActivity : .notDue
        do {
            _ = try TimerMachine.fire(event, on: a, now: farLate)
            Issue.record("\(state) × \(event) should be rejected \(code.rawValue)")
        } catch {
            #expect(error.code == code, "\(state) × \(event)")
        }
        #expect(a.flatMap { TimerMachine.dueInstant(event, of: $0) } == nil, "\(state) × \(event) has no instant")
        return
    }
    let activity = try #require(a)
    #expect(TimerMachine.dueInstant(event, of: activity) == at(second), "\(state) × \(event) due instant")
    do {
        _ = try TimerMachine.fire(event, on: activity, now: at(second) - .milliseconds(1))
        Issue.record("\(state) × \(event) fired 1 ms early")
    } catch {
        #expect(error.code == .notDue)
    }
    let t = try TimerMachine.fire(event, on: activity, now: at(second))
    #expect(t.phase == phase, "\(state) × \(event)")
    #expect(!t.effects.isEmpty, "a time event reports what it did")
}

/// The last cycle's end is COMPLETE, not CYCLE_END, and its dismissal follows 3 s later.
@Test func theLastCyclesEndIsFinalCompletion() throws {
    let one = try #require(started(ActivityAttributes(kind: .countdown(cycle: .seconds(300), cycles: 1))))
    #expect(TimerMachine.dueInstant(.cycleEnded, of: one) == nil)
    #expect(TimerMachine.dueInstant(.finalCompletion, of: one) == at(300))
    let done = try TimerMachine.fire(.finalCompletion, on: one, now: at(300))
    #expect(done.phase == .complete)
    #expect(done.activity?.ending?.dismissAt == at(303))
    let stale = ActivityAttributes(kind: .countdown(cycle: .seconds(300), cycles: 1), staleAfter: .seconds(60))
    let s = try #require(started(stale))
    #expect(TimerMachine.dueInstant(.staleness, of: s) == at(60))
    #expect(try TimerMachine.fire(.staleness, on: s, now: at(60)).activity?.content.isStale == true)
}

@Test func markFreshClearsTheHostsStaleMarkAndRestartsTheStaleInterval() throws {
    let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(600), cycles: 1), staleAfter: .seconds(60))
    let stale = try #require(try TimerMachine.apply(.markStale, to: started(attrs), now: at(5)).activity)
    #expect(stale.content.isStale)
    #expect(stale.staleAt == nil)
    let fresh = try TimerMachine.apply(.markFresh, to: stale, now: at(100))
    #expect(fresh.effects == [.becameFresh])
    #expect(fresh.activity?.content.isStale == false)
    #expect(fresh.activity?.staleAt == at(160))
    #expect(fresh.activity?.content.display == stale.content.display)
}
