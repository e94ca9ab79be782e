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
    case start, pause, resume, toggle, reset, endImmediate, endDefault, endAfter, expand, markStale
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
        }
    }
}

let table: [Fixture: [IntentName: Outcome]] = [
    .idle: [
        .start: .to(.running), .pause: .rejected(.noActivity), .resume: .rejected(.noActivity),
        .toggle: .to(.running), .reset: .rejected(.noActivity), .endImmediate: .rejected(.noActivity),
        .endDefault: .rejected(.noActivity), .endAfter: .rejected(.noActivity),
        .expand: .rejected(.noActivity), .markStale: .rejected(.noActivity),
    ],
    .running: [
        .start: .to(.running), .pause: .to(.paused), .resume: .rejected(.alreadyRunning),
        .toggle: .to(.paused), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.running), .markStale: .to(.running),
    ],
    .paused: [
        .start: .to(.running), .pause: .rejected(.alreadyPaused), .resume: .to(.running),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.paused), .markStale: .to(.paused),
    ],
    .cycleEnd: [
        .start: .to(.running), .pause: .to(.paused), .resume: .rejected(.notPaused),
        .toggle: .to(.paused), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.cycleEnd), .markStale: .to(.cycleEnd),
    ],
    .complete: [
        .start: .to(.running), .pause: .rejected(.alreadyComplete), .resume: .rejected(.alreadyComplete),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.complete), .markStale: .to(.complete),
    ],
    .stopwatchRunning: [
        .start: .to(.running), .pause: .to(.paused), .resume: .rejected(.alreadyRunning),
        .toggle: .to(.paused), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.running), .markStale: .to(.running),
    ],
    .stopwatchPaused: [
        .start: .to(.running), .pause: .rejected(.alreadyPaused), .resume: .to(.running),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.paused), .markStale: .to(.paused),
    ],
    .stopwatchComplete: [
        .start: .to(.running), .pause: .rejected(.alreadyComplete), .resume: .rejected(.alreadyComplete),
        .toggle: .to(.running), .reset: .to(.idle), .endImmediate: .to(.idle),
        .endDefault: .to(.complete), .endAfter: .to(.complete), .expand: .to(.complete), .markStale: .to(.complete),
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
        #expect(!t.effects.isEmpty || name == .markStale, "a transition reports what it did")
    } catch {
        outcome = .rejected(error.code)
        #expect(!error.message.isEmpty)
    }
    #expect(outcome == expected, "\(state) × \(name)")
}

@Test func fixturesAreInTheirStates() {
    let phases: [Fixture: Phase] = [.idle: .idle, .running: .running, .paused: .paused, .cycleEnd: .cycleEnd,
                                    .complete: .complete, .stopwatchRunning: .running,
                                    .stopwatchPaused: .paused, .stopwatchComplete: .complete]
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
    #expect(throws: Rejection(.invalidAttributes, "timer id must be 1 to 32 characters of a-z, 0-9, '-' or '_' (got \"Bad Id!\")")) {
        try TimerMachine.apply(.start(badID), to: nil, now: t0)
    }
}
