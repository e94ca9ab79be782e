import Testing
import IsletCore
import IsletInput

@Suite struct ButtonsChimeTests {
    @Test func patternStepsAlternateFromOnAndEndOff() throws {
        // "200,100,200": on 200, off 100, on 200, then off (the [chime] key's definition).
        let p = try ChimePattern.parse("200,100,200")
        #expect(p.steps.map(\.offsetMilliseconds) == [0, 200, 300, 500])
        #expect(p.steps.map(\.active) == [true, false, true, false])
        // An even count ends with an off duration: no extra step.
        let q = try ChimePattern.parse("50,50")
        #expect(q.steps.map(\.offsetMilliseconds) == [0, 50])
        #expect(q.steps.map(\.active) == [true, false])
    }

    @Test(arguments: ["", "a", "100,", ",100", "0", "10001", "6000,4001", "-5"])
    func badPatternsAreRejected(_ text: String) {
        #expect(throws: ChimePattern.ParseError.self) { try ChimePattern.parse(text) }
    }

    @Test func tooManyDurationsAreRejected() {
        let text = Array(repeating: "10", count: 33).joined(separator: ",")
        #expect(throws: ChimePattern.ParseError.self) { try ChimePattern.parse(text) }
    }

    @Test func playerDrivesTheLevelsOnTime() throws {
        var p = ChimePlayer()
        let t0: UInt64 = 7_000_000_000
        #expect(p.start(try ChimePattern.parse("200,100,200"), at: t0) == true)
        #expect(p.nextDeadline == t0 + 200_000_000)
        #expect(p.advance(to: t0 + 199_999_999) == nil)
        #expect(p.advance(to: t0 + 200_000_000) == false)
        #expect(p.nextDeadline == t0 + 300_000_000)
        // A late wake-up applies every step it passed: the pulse it slept through is skipped
        // and the final level (off, as already driven) needs no write.
        #expect(p.advance(to: t0 + 600_000_000) == nil)
        #expect(!p.active)
        #expect(p.nextDeadline == nil)
        #expect(!p.isPlaying)
    }

    @Test func stopSilencesAChimeInProgress() throws {
        var p = ChimePlayer()
        _ = p.start(try ChimePattern.parse("500"), at: 0)
        #expect(p.stop() == false)
        #expect(p.nextDeadline == nil)
        #expect(p.stop() == nil)
    }

    // MARK: decisions from the core's real transitions

    private let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 2),
                                           cycleEndInterval: .seconds(3))
    private func at(_ s: Int64) -> Instant { Instant(milliseconds: s * 1000) }

    private func cue(_ t: Transition) -> ChimeCue? { ChimeCue.decide(effects: t.effects, phase: t.phase) }

    @Test func cycleEndChimes() throws {
        let start = try TimerMachine.apply(.start(attrs), to: nil, now: at(0))
        #expect(cue(start) == nil)
        let end = TimerMachine.advance(start.activity, to: at(60))
        #expect(end.phase == .cycleEnd)
        #expect(cue(end) == .cycleEnd)
    }

    @Test func completionChimesOnceWithItsOwnPattern() throws {
        let start = try TimerMachine.apply(.start(attrs), to: nil, now: at(0))
        let done = TimerMachine.advance(start.activity, to: at(123))
        #expect(done.effects.contains(.completed))
        // Both cycles' ends and the completion fall in this one advance: completion wins.
        #expect(cue(done) == .completion)
    }

    @Test func pausingSilencesAndAPausedTimerNeverChimes() throws {
        let start = try TimerMachine.apply(.start(attrs), to: nil, now: at(0))
        let paused = try TimerMachine.apply(.pause, to: start.activity, now: at(10))
        #expect(cue(paused) == .silence)
        // Time passes while paused: no cycle end, no chime.
        let later = TimerMachine.advance(paused.activity, to: at(600))
        #expect(cue(later) == nil)
        // A pause that arrives after the cycle ended (a late wake-up) holds the session: silence.
        let late = try TimerMachine.apply(.pause, to: start.activity, now: at(61))
        #expect(late.effects.contains(.cycleEnded(cycle: 1)))
        #expect(late.phase == .paused)
        #expect(cue(late) == .silence)
    }

    @Test func aPushedAlertChimesOnceWithTheCycleEndsStrikeAndAPlainUpdateIsQuiet() throws {
        let laundry = ActivityAttributes(timerID: "laundry", kind: .until(PushedContent(endsAt: at(900))))
        let start = try TimerMachine.apply(.start(laundry), to: nil, now: at(0))
        let alert = try TimerMachine.apply(.update(ContentUpdate(text: .set("Done"), alert: true)), to: start.activity, now: at(5))
        #expect(cue(alert) == .alert)
        let plain = try TimerMachine.apply(.update(ContentUpdate(progress: .set(0.5))), to: start.activity, now: at(5))
        #expect(cue(plain) == nil)
    }

    @Test func resetSilences() throws {
        let start = try TimerMachine.apply(.start(attrs), to: nil, now: at(0))
        let reset = try TimerMachine.apply(.reset, to: start.activity, now: at(5))
        #expect(cue(reset) == .silence)
    }

    @Test func resumeAndExpandAreQuiet() throws {
        let start = try TimerMachine.apply(.start(attrs), to: nil, now: at(0))
        let paused = try TimerMachine.apply(.pause, to: start.activity, now: at(10))
        #expect(cue(try TimerMachine.apply(.resume, to: paused.activity, now: at(20))) == nil)
        #expect(cue(try TimerMachine.apply(.expand, to: start.activity, now: at(20))) == nil)
    }
}
