import Testing
import FoundationEssentials
import IsletCore
import IsletSync

// What a rogue member of the group can send (docs/SYNC.md "Threat model"), each case one of
// the defects an outside test found.

private let poison = Revision(wallMilliseconds: .max, counter: .max, device: "rogue")

@Test func theOverflowRevisionIsRefusedAndTheNextLocalChangeDoesNotTrap() {
    var desk = SyncLedger(device: "desk")
    let tomb = SyncRecord(timerID: "default", revision: poison, activity: nil)
    guard case .refused(let why) = desk.merge(tomb, now: morning) else { Issue.record("taken"); return }
    #expect(why.contains("9999"))
    // The largest revision a record may carry, counter at its maximum, within a day ahead: refused too.
    let edge = Revision(wallMilliseconds: Revision.maximumWallMilliseconds, counter: .max, device: "rogue")
    guard case .refused = desk.merge(SyncRecord(timerID: "nap", revision: edge, activity: nil), now: morning) else { Issue.record("taken"); return }
    let r = desk.record("default", activity: nil, now: morning)
    #expect(r.revision == Revision(wallMilliseconds: morning.milliseconds, counter: 0, device: "desk"))
}

@Test func theClockNeverWrapsEvenAtItsLastMillisecond() {
    var c = HybridClock(device: "desk")
    c.observe(Revision(wallMilliseconds: Revision.maximumWallMilliseconds, counter: .max - 1, device: "x"))
    let a = c.tick(wallMilliseconds: 0)
    let b = c.tick(wallMilliseconds: .max)
    let d = c.tick(wallMilliseconds: .min)
    #expect(a.counter == .max && a.wallMilliseconds == Revision.maximumWallMilliseconds)
    #expect(b == Revision(wallMilliseconds: Revision.maximumWallMilliseconds, counter: .max, device: "desk"))
    #expect(d == b)
    // A reading out of range is never observed.
    var e = HybridClock(device: "desk")
    e.observe(poison)
    #expect(e.last == nil)
}

@Test func aRecordDatedAheadOfTheBoundWaitsForThisClockAndOneDatedYearsAheadIsRefused() {
    var desk = SyncLedger(device: "desk")
    #expect(desk.aheadLimitMilliseconds == 3_000)
    // 2100: refused, and this display's next revision stays at its own time.
    let future = SyncRecord(timerID: "default", revision: Revision(wallMilliseconds: 4_102_444_800_000, counter: 0, device: "rogue"), activity: nil)
    guard case .refused(let why) = desk.merge(future, now: morning) else { Issue.record("not refused"); return }
    #expect(why.contains("ahead"))
    #expect(desk.record("other", activity: nil, now: morning).revision.wallMilliseconds == morning.milliseconds)
    // An honest peer 10 s fast: held, taken when this clock gets there, and never early.
    let fast = SyncRecord(timerID: "nap", revision: Revision(wallMilliseconds: morning.milliseconds + 10_000, counter: 0, device: "bed"), activity: nil)
    #expect(desk.merge(fast, now: morning) == .deferred(aheadMilliseconds: 10_000))
    #expect(desk.record(for: "nap") == nil)
    #expect(desk.nextPendingWallMilliseconds == morning.milliseconds + 7_000)
    #expect(desk.takeDue(now: morning + .milliseconds(6_999)).isEmpty)
    let due = desk.takeDue(now: morning + .milliseconds(7_000))
    #expect(due.count == 1 && due.first?.merge == .taken(replaced: nil))
    #expect(desk.record(for: "nap") == fast)
    #expect(desk.pending.isEmpty)
    // Within the bound: taken at once, and the clock moves at most that far ahead.
    let near = SyncRecord(timerID: "tea", revision: Revision(wallMilliseconds: morning.milliseconds + 20_000, counter: 9, device: "bed"), activity: nil)
    #expect(desk.merge(near, now: morning + .seconds(17)) == .taken(replaced: nil))
    #expect(desk.record("x", activity: nil, now: morning + .seconds(17)).revision == Revision(wallMilliseconds: morning.milliseconds + 20_000, counter: 10, device: "desk"))
}

@Test func heldRecordsAreBoundedAndTheOneFurthestAheadGoesFirst() {
    var desk = SyncLedger(device: "desk")
    for i in 0..<100 {
        let r = SyncRecord(timerID: "t\(i)", revision: Revision(wallMilliseconds: morning.milliseconds + 4_000 + Int64(i) * 1_000, counter: 0, device: "x"), activity: nil)
        _ = desk.merge(r, now: morning)
    }
    #expect(desk.pending.count == SyncLedger.maximumPending)
    #expect(Set(desk.pending.keys) == Set((0..<SyncLedger.maximumPending).map { "t\($0)" }))
}

@Test func aFloodOfLiveRecordsForInventedTimersStopsAtTheBookBound() throws {
    var desk = SyncLedger(device: "desk")
    var refused = 0
    for i in 0..<1_000 {
        let a = try countdown("t\(i)", minutes: 10, at: morning)
        let r = SyncRecord(timerID: "t\(i)", revision: Revision(wallMilliseconds: morning.milliseconds, counter: UInt32(i), device: "rogue"), activity: a)
        if case .refused = desk.merge(r, now: morning + .milliseconds(Int64(i))) { refused += 1 }
    }
    #expect(desk.liveCount(at: morning) == SyncLedger.maximumLive)
    #expect(refused == 1_000 - SyncLedger.maximumLive)
    // Tombstones of invented timers: bounded as well (the oldest go first).
    for i in 0..<1_000 {
        let r = SyncRecord(timerID: "z\(i)", revision: Revision(wallMilliseconds: morning.milliseconds, counter: UInt32(i), device: "rogue"), activity: nil)
        _ = desk.merge(r, now: morning + .seconds(2) + .milliseconds(Int64(i)))
    }
    #expect(desk.entries.count == SyncLedger.maximumEntries)
    #expect(desk.liveCount(at: morning + .seconds(3)) == SyncLedger.maximumLive)
    #expect(desk.record(for: "z999") != nil)
}

@Test func twoRecordsAtOneRevisionEndTheSameOnEveryDisplayWhateverTheOrder() throws {
    let rev = Revision(wallMilliseconds: morning.milliseconds, counter: 0, device: "desk")
    let honest = SyncRecord(timerID: "default", revision: rev, activity: try countdown("default", minutes: 10, at: morning))
    let forged = SyncRecord(timerID: "default", revision: rev, activity: try countdown("default", minutes: 1, at: morning))
    var a = SyncLedger(device: "a"), b = SyncLedger(device: "b")
    let first = a.merge(honest, now: morning), second = a.merge(forged, now: morning)
    let third = b.merge(forged, now: morning), fourth = b.merge(honest, now: morning)
    #expect(first == .taken(replaced: nil) && third == .taken(replaced: nil))
    #expect(a.record(for: "default") == b.record(for: "default"))
    // Exactly one of the two late arrivals replaced what was held; the other display answers
    // with its copy (older), which the broker then holds.
    let replaced = [second, fourth].filter { if case .taken = $0 { true } else { false } }
    let answered = [second, fourth].filter { if case .older = $0 { true } else { false } }
    #expect(replaced.count == 1 && answered.count == 1)
    // The same record again is a duplicate.
    #expect(a.merge(a.record(for: "default") ?? honest, now: morning) == .duplicate)
}

@Test func aPoisonedSavedClockHealsAtLoadAndTheActivitiesRecordsStay() throws {
    // A ledger as a display poisoned before the bounds saved it: the clock and a tombstone at
    // the overflow revision, beside an honest record of a running activity.
    var poisoned = SyncLedger(device: "desk")
    let a = try countdown("default", minutes: 10, at: morning)
    _ = poisoned.record("default", activity: a, now: morning)
    let json = """
    {"clock":{"device":"desk","last":{"wall_ms":9223372036854775807,"counter":4294967295,"device":"desk"}},
     "entries":[\(String(decoding: try JSONEncoder().encode(poisoned.entries["default"]!), as: UTF8.self)),
     {"record":{"timer":"nap","revision":{"wall_ms":9223372036854775807,"counter":4294967295,"device":"rogue"}},"taken_at_ms":\(morning.milliseconds)}]}
    """
    var loaded = try JSONDecoder().decode(SyncLedger.self, from: Data(json.utf8))
    let note = loaded.heal(now: morning + .seconds(60))
    #expect(note?.contains("clock") == true)
    #expect(loaded.record(for: "nap") == nil)
    #expect(loaded.record(for: "default")?.activity == a)
    #expect(loaded.heal(now: morning + .seconds(60)) == nil, "healed once, then nothing to say")
    let next = loaded.record("default", activity: nil, now: morning + .seconds(61))
    #expect(next.revision.wallMilliseconds == morning.milliseconds + 61_000)
}

@Test func aClockSteppedBackLessThanAnHourKeepsItsOrderAtLoad() {
    var desk = SyncLedger(device: "desk")
    let before = desk.record("default", activity: nil, now: morning)
    // Restarted with the wall clock 50 minutes behind: nothing is repaired, the next revision is later.
    #expect(desk.heal(now: morning - .seconds(3_000)) == nil)
    #expect(desk.record("default", activity: nil, now: morning - .seconds(3_000)).revision > before.revision)
}
