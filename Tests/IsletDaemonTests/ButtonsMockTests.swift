import IsletInput
import IsletSystem
import Testing
import IsletCore
import IsletDaemon
import IsletLinux
import IsletClock
import IsletConfig
#if canImport(Glibc)
import Glibc
#endif

/// Waits for `fd` to become readable, at most `ms` milliseconds: the daemon's poll, in small.
private func readable(_ fd: Int32, within ms: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, ms) == 1 && (p.revents & Int16(POLLIN)) != 0
}

@Suite(.timeLimit(.minutes(1))) struct ButtonsMockTests {
    @Test func aPressIsReadableAtOnceAndItsReleaseWhenDue() throws {
        // The daemon's injected clock: the release is due when the test moves time, not before.
        let clock = ManualLoopClock()
        let t0 = clock.monotonic().nanoseconds
        let mock = try MockButtons(buttons: ["toggle", "reset"], clock: clock)
        #expect(!readable(mock.descriptors[0].raw, within: 0))
        try mock.press(button: "toggle", holdMilliseconds: 120)
        // The press is due now: the descriptor is readable without waiting.
        #expect(readable(mock.descriptors[0].raw, within: 1_000))
        #expect(try mock.readEdges() == [ButtonEdge(button: "toggle", pressed: true, timestampNanoseconds: t0)])
        #expect(mock.pendingCount == 1)
        // Not yet due on the test's clock, and the descriptor says so.
        clock.advance(milliseconds: 119)
        #expect(!readable(mock.descriptors[0].raw, within: 0))
        #expect(try mock.readEdges() == [])
        clock.advance(milliseconds: 1)
        #expect(readable(mock.descriptors[0].raw, within: 0), "the clock reaching the release wakes the reader")
        #expect(try mock.readEdges() == [ButtonEdge(button: "toggle", pressed: false, timestampNanoseconds: t0 + 120_000_000)])
        #expect(mock.pendingCount == 0)
        #expect(!readable(mock.descriptors[0].raw, within: 0))
    }

    @Test func theDescriptorWakesThePollLoopAtTheRelease() throws {
        // Real monotonic clock: the release 30 ms later must wake poll by itself.
        let mock = try MockButtons(buttons: ["toggle"])
        try mock.press(button: "toggle", holdMilliseconds: 30)
        #expect(readable(mock.descriptors[0].raw, within: 1_000))
        #expect(try mock.readEdges().map(\.pressed) == [true])
        #expect(readable(mock.descriptors[0].raw, within: 2_000))
        let release = try mock.readEdges()
        #expect(release.map(\.pressed) == [false])
        #expect((release.first?.timestampNanoseconds ?? 0) <= monotonicNanoseconds())
    }

    @Test func anUnknownButtonIsNamedWithTheKnownOnes() throws {
        let mock = try MockButtons(buttons: ["toggle", "reset"])
        #expect(throws: MockButtonError.unknownButton("pause", known: ["toggle", "reset"])) {
            try mock.press(button: "pause")
        }
    }

    @Test func scriptedEdgesComeOutInTimeOrder() throws {
        let clock = ManualLoopClock()
        let t0 = clock.monotonic().nanoseconds
        let mock = try MockButtons(buttons: ["a", "b"], clock: clock)
        try mock.enqueue([ButtonEdge(button: "b", pressed: true, timestampNanoseconds: t0 - 500),
                          ButtonEdge(button: "a", pressed: true, timestampNanoseconds: t0 - 900),
                          ButtonEdge(button: "a", pressed: false, timestampNanoseconds: t0 + 1_000)])
        #expect(try mock.readEdges().map(\.timestampNanoseconds) == [t0 - 900, t0 - 500])
    }

    // MARK: mock presses through the interpreter into the core (issue 6 §4)

    private let session = ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 3),
                                             cycleEndInterval: .seconds(5))

    /// Presses `button` for `hold` ms at `t` seconds and applies what the default map makes of it.
    private func press(_ button: String, at t: Int64, hold: UInt64 = 100, on activity: Activity?,
                       interpreter i: inout ButtonInterpreter) throws -> Transition {
        let ns = UInt64(t) * 1_000_000_000
        var commands = i.handle([ButtonEdge(button: button, pressed: true, timestampNanoseconds: ns)])
        commands += i.advance(to: ns + hold * 1_000_000)
        commands += i.handle([ButtonEdge(button: button, pressed: false, timestampNanoseconds: ns + hold * 1_000_000)])
        var current = Transition(activity: activity, effects: [])
        for c in commands {
            let now = Instant(milliseconds: Int64(c.event.timestampNanoseconds / 1_000_000))
            current = try TimerMachine.apply(c.action.intent(defaultSession: session), to: current.activity, now: now)
        }
        return current
    }

    @Test func toggleStartsPausesAndResumes() throws {
        var i = ButtonInterpreter()
        let started = try press("toggle", at: 0, on: nil, interpreter: &i)
        #expect(started.phase == .running)
        let paused = try press("toggle", at: 10, on: started.activity, interpreter: &i)
        #expect(paused.phase == .paused)
        // A press during the pause resumes.
        let resumed = try press("toggle", at: 20, on: paused.activity, interpreter: &i)
        #expect(resumed.phase == .running)
        #expect(resumed.effects == [.resumed])
    }

    @Test func aPressDuringCycleEndHoldsTheSession() throws {
        var i = ButtonInterpreter()
        let started = try press("toggle", at: 0, on: nil, interpreter: &i)
        // Cycle 1 ends at 60 s; the cycle-end pause lasts 5 s. A press at 62 s pauses before cycle 2.
        let held = try press("toggle", at: 62, on: started.activity, interpreter: &i)
        #expect(held.phase == .paused)
        #expect(held.activity?.content.cycle == 2)
        #expect(ChimeCue.decide(effects: held.effects, phase: held.phase) == .silence)
    }

    @Test func aLongPressOfToggleExpandsWithoutPausing() throws {
        var i = ButtonInterpreter()
        let started = try press("toggle", at: 0, on: nil, interpreter: &i)
        let expanded = try press("toggle", at: 10, hold: 900, on: started.activity, interpreter: &i)
        #expect(expanded.effects == [.expanded])
        #expect(expanded.phase == .running)
    }

    @Test func resetNeedsAHold() throws {
        var i = ButtonInterpreter()
        let started = try press("toggle", at: 0, on: nil, interpreter: &i)
        let brushed = try press("reset", at: 5, hold: 200, on: started.activity, interpreter: &i)
        #expect(brushed.phase == .running)
        let reset = try press("reset", at: 6, hold: 1_000, on: brushed.activity, interpreter: &i)
        #expect(reset.phase == .idle)
        #expect(reset.effects == [.ended(.immediate), .dismissed])
    }
}

@Suite(.timeLimit(.minutes(1))) struct ButtonsTargetTests {
    private let session = ActivityAttributes(timerID: "meditation", kind: .countdown(cycle: .seconds(60), cycles: 1))
    private func activity(_ id: String, startedAt ms: Int64) -> Activity {
        Activity(attributes: ActivityAttributes(timerID: id, kind: .stopwatch),
                 content: ContentState(display: .running(reference: Instant(milliseconds: ms))),
                 startedAt: Instant(milliseconds: ms))
    }
    private func command(_ action: ButtonAction, _ timer: String? = nil) -> ButtonCommand {
        ButtonCommand(action: action, timerID: timer, event: GestureEvent(button: "toggle", gesture: .press, timestampNanoseconds: 0))
    }

    // The target of a button is decided in one place, the book: the map's timer id, else the
    // most recently started activity; with none, only a toggle acts (it starts the session).
    private func started(_ ids: [String]) throws -> ActivityBook {
        var book = ActivityBook()
        for (i, id) in ids.enumerated() {
            var attrs = session
            attrs.timerID = id
            let outcome = try book.apply(.start(attrs), timer: nil, now: Instant(milliseconds: 1_000 * Int64(i + 1)))
            if case .starting(_, let t) = outcome { _ = book.finishStart(t, saved: true) }
        }
        return book
    }

    @Test func theMostRecentlyStartedActivityIsTheTarget() throws {
        var book = try started(["tea", "yoga", "bread"])
        #expect(book.resolve(command(.pause).timerID)?.timerID == "bread")
        // Starting tea again makes it the most recently started.
        let outcome = try book.apply(.start(session), timer: "tea", now: Instant(milliseconds: 9_000))
        if case .starting(_, let t) = outcome { _ = book.finishStart(t, saved: true) }
        #expect(book.resolve(command(.pause).timerID)?.timerID == "tea")
        let change = try book.apply(ButtonAction.pause.intent(defaultSession: session), timer: command(.pause).timerID, now: Instant(milliseconds: 9_500))
        #expect(change.change.timerID == "tea" && change.change.transition.phase == .paused)
    }

    @Test func aTimerIDInTheMapWins() throws {
        var book = try started(["kitchen", "tea"])
        let change = try book.apply(.pause, timer: command(.pause, "kitchen").timerID, now: Instant(milliseconds: 5_000))
        #expect(change.change.timerID == "kitchen")
    }

    @Test func withNoActivityOnlyAToggleHasATarget() throws {
        var book = ActivityBook()
        let toggled = try book.apply(ButtonAction.toggle.intent(defaultSession: session), timer: nil, now: Instant(milliseconds: 1_000))
        #expect(toggled.change.timerID == "meditation" && toggled.change.transition.effects.contains(.started))
        var empty = ActivityBook()
        #expect(throws: Rejection.self) { try empty.apply(ButtonAction.reset.intent(defaultSession: session), timer: nil, now: Instant(milliseconds: 1_000)) }
    }

    @Test func keyboardLettersPressAndCapitalsHold() {
        let buttons = ["toggle", "reset", "expand"]
        #expect(MockButtons.keyPress(for: "t", buttons: buttons)?.button == "toggle")
        #expect((MockButtons.keyPress(for: "t", buttons: buttons)?.holdMilliseconds ?? 0) < 800)
        #expect(MockButtons.keyPress(for: "R", buttons: buttons)?.button == "reset")
        #expect((MockButtons.keyPress(for: "R", buttons: buttons)?.holdMilliseconds ?? 0) >= 800)
        #expect(MockButtons.keyPress(for: "x", buttons: buttons) == nil)
        // A hold from the keyboard must be a long press for the recognizer.
        var r = GestureRecognizer()
        let hold = MockButtons.keyPress(for: "E", buttons: buttons)?.holdMilliseconds ?? 0
        let events = r.feed([ButtonEdge(button: "expand", pressed: true, timestampNanoseconds: 0),
                             ButtonEdge(button: "expand", pressed: false, timestampNanoseconds: hold * 1_000_000)])
        #expect(events.map(\.gesture) == [.press, .longPress, .release])
    }
}

/// The daemon's loop in small, with real descriptors and the real clock: poll the source's
/// descriptor, wake at the interpreter's deadline, collect commands.
@Suite(.timeLimit(.minutes(1))) struct ButtonsPollLoopTests {
    private func run(_ mock: MockButtons, _ interpreter: inout ButtonInterpreter, until done: ([ButtonCommand]) -> Bool) throws -> [ButtonCommand] {
        var commands: [ButtonCommand] = []
        let giveUp = monotonicNanoseconds() + 3_000_000_000
        while !done(commands), monotonicNanoseconds() < giveUp {
            let now = monotonicNanoseconds()
            let wait = interpreter.nextDeadline.map { $0 > now ? Int32(min(($0 - now) / 1_000_000 + 1, 1_000)) : 0 } ?? 1_000
            var p = pollfd(fd: mock.descriptors[0].raw, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, wait) == 1 { commands += interpreter.handle(try mock.readEdges()) }
            commands += interpreter.advance(to: monotonicNanoseconds())
        }
        return commands
    }

    @Test func aShortTogglePressTogglesAtItsRelease() throws {
        let mock = try MockButtons(buttons: ButtonConfig().buttons)
        var interpreter = ButtonInterpreter()
        try mock.press(button: "toggle", holdMilliseconds: 60)
        let commands = try run(mock, &interpreter) { !$0.isEmpty }
        #expect(commands.map(\.action) == [.toggle])
        #expect(!interpreter.recognizer.isHeld("toggle"))
    }

    @Test func aHeldResetFiresWhileStillHeld() throws {
        let mock = try MockButtons(buttons: ButtonConfig().buttons)
        // A short long-press time keeps the test quick; the release is far later.
        var interpreter = ButtonInterpreter(longPressMilliseconds: 150)
        try mock.press(button: "reset", holdMilliseconds: 2_000)
        let commands = try run(mock, &interpreter) { !$0.isEmpty }
        #expect(commands.map(\.action) == [.reset])
        // It fired on the deadline, with the release still queued.
        #expect(mock.pendingCount == 1)
        #expect(interpreter.recognizer.isHeld("reset"))
    }
}
