import Foundation
import IsletCore
import IsletSystem
import Synchronization
import Testing
import IsletClock
import IsletStore
import IsletTestSupport

/// Issue 12 §2 (tick lateness): a restart in the same boot continues the timeline exactly, so a
/// running countdown's ticks keep their phase on the wall clock. The expectations are computed
/// here from the clock readings (timeline = wall at the first start, then CLOCK_BOOTTIME since),
/// not from HostClock's own arithmetic.

/// Clocks a test sets by hand: boot and wall time in nanoseconds; CLOCK_MONOTONIC equals
/// CLOCK_BOOTTIME (nothing was suspended).
final class SetClock: LoopClock {
    private let ns = Mutex((boot: Int64(0), wall: Int64(0)))
    private let timers = ManualLoopClock()
    init(boot: Int64, wall: Int64) { ns.withLock { $0 = (boot, wall) } }
    func set(boot: Int64, wall: Int64) { ns.withLock { $0 = (boot, wall) } }
    func monotonic() -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(bootNanoseconds())) }
    func bootMilliseconds() -> Int64 { bootNanoseconds() / 1_000_000 }
    func wallMilliseconds() -> Int64 { wallNanoseconds() / 1_000_000 }
    func bootNanoseconds() -> Int64 { ns.withLock { $0.boot } }
    func wallNanoseconds() -> Int64 { ns.withLock { $0.wall } }
    func monotonic(atBootNanoseconds n: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(n)) }
    func makeDeadlineTimer() throws(SystemError) -> any DeadlineTimer { try timers.makeDeadlineTimer() }
}

@Suite("the timeline across a restart in the same boot")
struct TimelineRestartTests {
    // Sub-millisecond parts on purpose: a whole-millisecond save loses them.
    let boot0: Int64 = 5_000_123_456_789
    let wall0: Int64 = 1_780_000_000_987_654_321

    @Test func aSaveCarriesTheExactOffsetAndARestartContinuesToTheNanosecond() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let clocks = SetClock(boot: boot0, wall: wall0)
        let first = HostClock(clocks)
        clocks.set(boot: boot0 + 1_000_000_777, wall: wall0 + 1_000_000_777)
        try FileStore(directory: dir, timeline: first).saveNow([])

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/activities.json"))) as? [String: Any])
        #expect((json["timeline_offset_ns"] as? NSNumber)?.int64Value == wall0 - boot0)
        #expect((json["boot_ns"] as? NSNumber)?.int64Value == boot0 + 1_000_000_777)
        #expect((json["boot_ms"] as? NSNumber)?.int64Value == (boot0 + 1_000_000_777) / 1_000_000, "earlier versions read boot_ms")

        // 2.345678901 s later, and someone has moved the wall clock an hour ahead meanwhile.
        let boot1 = boot0 + 3_345_679_678
        clocks.set(boot: boot1, wall: wall0 + 3_600_000_000_000 + 3_345_679_678)
        let loaded = FileStore(directory: dir, now: { .epoch }).load()
        let restarted = HostClock(clocks)
        #expect(restarted.continueTimeline(after: try #require(loaded.timeline)))

        // The first process's timeline, from its clock readings: wall0 at boot0, then boot time.
        let timelineNs = wall0 + (boot1 - boot0)
        #expect(restarted.rawNow() == Instant(milliseconds: timelineNs / 1_000_000))
        // A second boundary of that timeline falls at the same CLOCK_MONOTONIC nanosecond.
        let tick = Instant(milliseconds: (timelineNs / 1_000_000_000 + 1) * 1_000)
        let expected = MonotonicInstant(nanoseconds: UInt64(boot0 + (tick.milliseconds * 1_000_000 - wall0)))
        #expect(restarted.monotonicInstant(of: tick) == expected)
        #expect(first.monotonicInstant(of: tick) == expected)
    }

    @Test func aFileOfAnEarlierVersionContinuesToTheMillisecond() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        // Written by hand the way earlier versions saved: boot_ms, no offset.
        let text = #"{"activities":[],"boot_id":"x","boot_ms":5000123,"saved_at":"2026-06-01T10:00:00.250Z","schema":1}"#
        try text.write(toFile: dir + "/activities.json", atomically: true, encoding: .utf8)
        let loaded = FileStore(directory: dir, now: { .epoch }).load()
        let saved = try #require(loaded.timeline)
        #expect(saved.offsetNanoseconds == nil)
        let clocks = SetClock(boot: 5_000_123 * 1_000_000 + 1_500_000_000, wall: 0)
        let h = HostClock(clocks)
        #expect(h.continueTimeline(after: saved))
        let savedAt = try #require(ISO8601.parse("2026-06-01T10:00:00.250Z"))
        #expect(h.rawNow() == savedAt + .milliseconds(1_500), "the save's instant plus 1.5 s of boot time")
    }

    @Test func aFlooredTimelineStampsNoOffset() {
        let clocks = SetClock(boot: boot0, wall: wall0)
        let h = HostClock(clocks)
        let floor = Instant(milliseconds: wall0 / 1_000_000 + 60_000)
        h.setFloor(floor)
        let s = h.stamp()
        #expect(s.at == floor, "the save records the instant the timeline stands at")
        #expect(s.offsetNanoseconds == nil, "and no offset: it describes a clock known to be wrong")
        h.setFloor(nil)
        #expect(h.stamp().offsetNanoseconds == wall0 - boot0)
    }

    @Test func aSaveFromTheBootClocksFutureIsNotContinued() {
        let clocks = SetClock(boot: boot0, wall: wall0)
        let h = HostClock(clocks)
        let before = h.rawNow()
        let future = TimelineStamp(at: Instant(milliseconds: 42), bootNanoseconds: boot0 + 1, offsetNanoseconds: 7)
        #expect(!h.continueTimeline(after: future))
        #expect(h.rawNow() == before)
    }
}
