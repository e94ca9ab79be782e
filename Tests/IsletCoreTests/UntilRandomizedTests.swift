import Testing
import IsletCore
import IsletTestSupport

/// Random sources pushing to an `until` activity beside a person's countdown: every step the
/// book accepts keeps every invariant and round-trips, and every refused one changes nothing.
/// The model is the spec's, not the machine's: the content is the last accepted fields, merged.
@Test func randomPushesKeepEveryInvariant() throws {
    let runs = fuzzIterations(500)
    let seed = UInt64(environmentValue("ISLET_FUZZ_SEED").flatMap { UInt64($0) } ?? 0x0A_7E)
    for run in 0..<runs {
        var rng = SplitMix(state: seed &+ UInt64(run))
        var book = ActivityBook()
        var now = t0
        var expected: PushedContent?
        _ = try? book.applyAndSave(.start(threeCycles), now: now)
        for _ in 0..<40 {
            now = now + .milliseconds(Int64(rng.int(120_000)))
            let before = book.activities
            func instant() -> Instant { now + .seconds(Int64(rng.int(200_000)) - 20_000) }
            func field<T>(_ make: () -> T) -> ContentUpdate.Field<T> {
                switch rng.int(3) { case 0: .keep; case 1: .set(make()); default: .clear }
            }
            let progresses: [Double] = [0, 0.5, 1, -0.1, 1.01, .nan, .infinity]
            let texts = ["Rinsing", "", String(repeating: "w", count: 33), "مرحبا", "a\u{0}b"]
            let intent: Intent
            switch rng.int(6) {
            case 0:
                let p = PushedContent(endsAt: rng.bool() ? instant() : nil, progress: rng.bool() ? progresses[rng.int(progresses.count)] : nil,
                                      text: rng.bool() ? texts[rng.int(texts.count)] : nil)
                intent = .start(ActivityAttributes(timerID: "laundry", kind: .until(p), staleAfter: rng.bool() ? .seconds(300) : nil))
            case 1, 2, 3:
                intent = .update(ContentUpdate(endsAt: field(instant), progress: field { progresses[rng.int(progresses.count)] },
                                               text: field { texts[rng.int(texts.count)] }, alert: rng.bool()))
            case 4: intent = [.pause, .resume, .toggle(default: threeCycles), .expand][rng.int(4)]
            default: intent = rng.bool() ? .end(.after(now + .seconds(3))) : .reset
            }
            let result = try? book.applyAndSave(intent, timer: "laundry", now: now)
            let after = book.activity(for: "laundry")
            if result == nil {
                // Refused: nothing of the laundry changed (the countdown may have moved on in time).
                #expect(before.first { $0.timerID == "laundry" } == after || after.map { TimerMachine.advance($0, to: now).activity == $0 } == true,
                        "run \(run): a refused \(intent) changed the activity")
            } else if let a = after, a.phase == .running {
                switch intent {
                case .start(let attrs): if case .until(let p) = attrs.kind { expected = p }
                case .update(let u): expected = expected.map(u.applied)
                default: break
                }
                // A toggle on a finished laundry starts the person's default session there.
                if !a.attributes.kind.isUntil { expected = nil }
                #expect(a.content.pushed == expected, "run \(run): \(intent)")
            }
            for a in book.activities {
                #expect(a.violation() == nil, "run \(run): \(a.violation().map(String.init(describing:)) ?? "")")
            }
            if !book.activities.isEmpty { try ActivityBook.check(book.activities) }
        }
    }
}
