import IsletCore

/// A fixed origin for tests: 2026-11-29T22:00:00.000Z.
let t0 = Instant(milliseconds: 1_796_076_000_000)

func at(_ seconds: Double) -> Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

/// A 5-minute, 3-cycle countdown with the default 3 s cycle end.
let threeCycles = ActivityAttributes(kind: .countdown(cycle: .seconds(300), cycles: 3))
let stopwatch = ActivityAttributes(kind: .stopwatch)
/// The laundry: its source says it ends at 3,000 s, a fifth done, washing.
let laundry = ActivityAttributes(timerID: "laundry", kind: .until(PushedContent(endsAt: at(3000), progress: 0.2, text: "Washing")),
                                 title: "Laundry", icon: .named("laundry"))

func started(_ attrs: ActivityAttributes = threeCycles, at now: Instant = t0) -> Activity? {
    try? TimerMachine.apply(.start(attrs), to: nil, now: now).activity
}

/// Builds the activity of each lifecycle state by driving the machine, never by hand.
enum Fixture: String, CaseIterable, CustomStringConvertible {
    case idle, running, paused, cycleEnd, complete
    case stopwatchRunning, stopwatchPaused, stopwatchComplete
    case untilRunning, untilComplete
    var description: String { rawValue }

    /// The activity in this state at `at(400)` (after the first cycle of a 300 s countdown).
    var activity: Activity? {
        switch self {
        case .idle: return nil
        case .running: return started()
        case .paused: return try? TimerMachine.apply(.pause, to: started(), now: at(100)).activity
        case .cycleEnd: return TimerMachine.advance(started(), to: at(301)).activity
        case .complete:
            return try? TimerMachine.apply(.end(.default), to: started(), now: at(10)).activity
        case .stopwatchRunning: return started(stopwatch)
        case .stopwatchPaused: return try? TimerMachine.apply(.pause, to: started(stopwatch), now: at(42.5)).activity
        case .stopwatchComplete: return try? TimerMachine.apply(.end(.default), to: started(stopwatch), now: at(60)).activity
        case .untilRunning: return started(laundry)
        case .untilComplete: return try? TimerMachine.apply(.end(.default), to: started(laundry), now: at(90)).activity
        }
    }

    /// The instant the table's intents are applied at: no time event is due then.
    var now: Instant {
        switch self {
        case .cycleEnd: at(302)
        default: at(200)
        }
    }
}


extension ActivityBook {
    /// Applies an intent as a host whose writes all succeed: a start stands at once.
    mutating func applyAndSave(_ intent: Intent, timer timerID: String? = nil, now: Instant) throws(Rejection) -> ManagerChange {
        let outcome = try apply(intent, timer: timerID, now: now)
        if case .starting(_, let ticket) = outcome { _ = finishStart(ticket, saved: true) }
        return outcome.change
    }

    /// Starts an activity whose write succeeds; the activity the start made.
    mutating func startAndSave(_ attributes: ActivityAttributes, now: Instant) throws(Rejection) -> Activity {
        guard let a = try applyAndSave(.start(attributes), now: now).transition.activity else {
            throw Rejection(.invalidAttributes, "start produced no activity")
        }
        return a
    }
}
