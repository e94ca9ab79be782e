import Testing
import FoundationEssentials
import IsletCore
import IsletTestSupport

/// The machine never makes what the loader refuses: a pause's frozen time is within the
/// bounds `ContentState.violation` holds it to, whatever the running reference says (a
/// reference after now: a clock behind, a forged backup; one long before: a late wake-up).
@Suite("pause stays within the loader's bounds")
struct PauseClampTests {
    let now = Instant(milliseconds: 1_796_256_000_000)
    let far = Instant(milliseconds: 7_258_118_399_000)   // 2199-12-31T23:59:59Z

    /// Offsets of the reference from now, before and after it, to the ends of the valid range.
    var references: [Instant] {
        let offsets: [Int64] = [-9 * 3_600_000, -8 * 3_600_000, -3_600_000, -61_000, -60_000, -1, 0, 1, 999, 59_999, 60_000,
                                60_001, 3_600_000, 9 * 3_600_000, 86_400_000 * 365]
        return offsets.map { Instant(milliseconds: now.milliseconds + $0) } + [far]
    }

    /// The paused activity passes the book's rules and the state file's encoding round trip.
    func expectLoadable(_ a: Activity, _ what: String) throws {
        #expect(a.violation() == nil, "\(what): \(String(describing: a.violation()))")
        let bytes = try JSONEncoder().encode(a)
        let back = try JSONDecoder().decode(Activity.self, from: bytes)
        #expect(back == a, "\(what)")
        #expect(throws: Never.self) { try ActivityBook.check([back]) }
    }

    @Test("a running stopwatch paused with its reference before or after now saves 0 to 8 h")
    func stopwatch() throws {
        var paused = 0
        for ref in references {
            let started = Instant(milliseconds: min(ref.milliseconds, now.milliseconds - 3_600_000))
            let a = Activity(attributes: ActivityAttributes(kind: .stopwatch),
                             content: ContentState(display: .running(reference: ref)), startedAt: started)
            #expect(a.violation() == nil, "\(ref)")
            let shown = ShownTime.exact(of: a, at: now)
            #expect(shown >= .zero && shown <= Limits.maximumActive, "\(ref): shown \(shown)")
            guard let t = try? TimerMachine.apply(.pause, to: a, now: now), let p = t.activity else { continue }
            guard case .paused(let f) = p.content.display else { continue }
            paused += 1
            #expect(f >= .zero && f <= Limits.maximumActive, "\(ref): frozen \(f)")
            if ref > now { #expect(f == .zero, "a reference after now is no time elapsed yet") }
            try expectLoadable(p, "stopwatch ref \(ref)")
            // And a resume of it is loadable too.
            if let r = try? TimerMachine.apply(.resume, to: p, now: now + .seconds(1)), let ra = r.activity { try expectLoadable(ra, "resumed \(ref)") }
        }
        #expect(paused >= 12)
    }

    @Test("a running countdown paused with its reference before or after now saves more than 0 and at most its cycle")
    func countdown() throws {
        let cycle = Duration.seconds(60)
        var paused = 0
        for ref in references {
            let started = Instant(milliseconds: min(ref.milliseconds, now.milliseconds - 1_000))
            let a = Activity(attributes: ActivityAttributes(kind: .countdown(cycle: cycle, cycles: nil)),
                             content: ContentState(display: .running(reference: ref)), startedAt: started)
            guard let t = try? TimerMachine.apply(.pause, to: a, now: now), let p = t.activity else { continue }
            guard case .paused(let f) = p.content.display else { continue }
            paused += 1
            #expect(f > .zero && f <= cycle, "\(ref): frozen \(f)")
            try expectLoadable(p, "countdown ref \(ref)")
        }
        #expect(paused >= 12)
    }

    @Test("an activity made by a clock ahead of this one stays loadable through every intent")
    func aClockAheadOfThisOne() throws {
        let ahead = now + .seconds(3600)
        let kinds: [ActivityAttributes] = [ActivityAttributes(kind: .stopwatch), ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 2))]
        let intents: [Intent] = [.pause, .resume, .toggle(default: ActivityAttributes(kind: .stopwatch)), .end(.default), .markFresh]
        var steps = 0
        for attrs in kinds {
            let started = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: ahead).activity)
            var current: Activity? = started
            for _ in 0..<3 {
                for intent in intents {
                    guard let t = try? TimerMachine.apply(intent, to: current, now: now), let next = t.activity else { continue }
                    try expectLoadable(next, "\(attrs.kind.name) after \(intent)")
                    steps += 1
                    if intent != .end(.default) { current = next }
                }
            }
        }
        #expect(steps >= 12)
    }
}
