import IsletCore
import IsletSync
import Testing
import IsletTestSupport

/// Runs `runs` seeded cases (`ISLET_FUZZ_ITERATIONS` overrides), the first seed from the
/// environment variable `seedVariable` or `defaultSeed`; the first failing case is recorded with
/// the line that replays it alone.
func seededCases(_ runs: Int, seedVariable: String, defaultSeed: UInt64, _ oneCase: (inout SplitMix) -> String?) {
    let seed = environmentValue(seedVariable).flatMap { UInt64($0) } ?? defaultSeed
    for run in 0..<fuzzIterations(runs) {
        var rng = SplitMix(state: seed &+ UInt64(run))
        if let problem = oneCase(&rng) {
            Issue.record("case seed \(seed &+ UInt64(run)) (replay: \(seedVariable)=\(seed &+ UInt64(run)) ISLET_FUZZ_ITERATIONS=1 swift test --filter IsletSyncTests): \(problem)")
            return
        }
    }
}

/// A countdown of `minutes` on `timer`, started at `at` (by the table, as a press would).
func countdown(_ timer: String, minutes: Int, at: Instant) throws -> Activity {
    var attrs = ActivityAttributes.countdown(minutes: minutes)
    attrs.timerID = timer
    guard let a = try TimerMachine.transition(.start(attrs), from: nil, now: at).activity else {
        throw Rejection(.invalidAttributes, "no activity")
    }
    return a
}

/// 2027-01-15 08:00:00 UTC: a wall clock far from the epoch, as a Pi's is once NTP has run.
let morning = Instant(milliseconds: 1_800_000_000_000)
