import Testing
import FoundationEssentials
import IsletCore
import IsletSync

@Test func anOldRetainedStateArrivingAfterAResetNeverBringsTheActivityBack() throws {
    var desk = SyncLedger(device: "desk")
    var bed = SyncLedger(device: "bed")
    let running = desk.record("default", activity: try countdown("default", minutes: 20, at: morning), now: morning)
    // The bedroom resets it a minute later: a tombstone (no activity) with a newer revision.
    #expect(bed.merge(running, now: morning + .seconds(1)) == .taken(replaced: nil))
    let reset = bed.record("default", activity: nil, now: morning + .seconds(60))
    #expect(reset.revision > running.revision)
    #expect(desk.merge(reset, now: morning + .seconds(60)) == .taken(replaced: running))
    // The broker's old retained copy of the running timer turns up again (a reconnect).
    #expect(desk.merge(running, now: morning + .seconds(61)) == .older(current: reset))
    #expect(desk.activities(at: morning + .seconds(61)).isEmpty)
    #expect(bed.merge(reset, now: morning + .seconds(61)) == .duplicate)
}

@Test func aTombstoneOutlivesEveryActivityItCouldShadow() throws {
    // An activity lives at most 8 h active and 4 h ended (Limits); a tombstone is kept longer
    // than both and longer than a retained record lives on the broker.
    #expect(SyncLedger.tombstoneLifetime > Limits.maximumActive + Limits.maximumLinger)
    #expect(SyncLedger.tombstoneLifetime > SyncLedger.retainedLifetime)
    #expect(SyncLedger.retainedLifetime >= Limits.maximumActive + Limits.maximumLinger)

    var desk = SyncLedger(device: "desk")
    let started = try countdown("default", minutes: 30, at: morning)
    let live = desk.record("default", activity: started, now: morning)
    _ = desk.record("default", activity: nil, now: morning + .seconds(300))
    // Still there a minute before its lifetime is up...
    desk.compact(now: morning + .seconds(300) + SyncLedger.tombstoneLifetime - .seconds(60))
    #expect(desk.record(for: "default")?.activity == nil && desk.record(for: "default") != nil)
    // ...and forgotten after it.
    desk.compact(now: morning + .seconds(300) + SyncLedger.tombstoneLifetime)
    #expect(desk.record(for: "default") == nil)
    // The shadowed record coming back now is taken, and shows nothing: the activity is long over.
    let late = morning + .seconds(300) + SyncLedger.tombstoneLifetime + .seconds(1)
    #expect(desk.merge(live, now: late) == .taken(replaced: nil))
    #expect(desk.activities(at: late).isEmpty)
}

@Test func aLiveRecordIsNeverForgottenAndTombstonesAreBoundedInNumber() throws {
    var desk = SyncLedger(device: "desk")
    let live = try countdown("kept", minutes: 25, at: morning)
    _ = desk.record("kept", activity: live, now: morning)
    let n = SyncLedger.maximumEntries + 44
    for i in 0..<n {
        _ = desk.record("t\(i)", activity: nil, now: morning + .milliseconds(Int64(i)))
    }
    #expect(desk.entries.count == SyncLedger.maximumEntries)
    #expect(desk.record(for: "kept")?.activity == live)
    // The oldest tombstones went first: t0…t44 are gone (45 of them, one place kept for the live record).
    #expect(desk.record(for: "t0") == nil && desk.record(for: "t44") == nil)
    #expect(desk.record(for: "t45") != nil && desk.record(for: "t\(n - 1)") != nil)
    // A day later the 25-minute session is long over too: everything is a tombstone past its age.
    desk.compact(now: morning + SyncLedger.tombstoneLifetime + .seconds(1))
    #expect(desk.entries.isEmpty)
}

@Test func recordsNoDeviceMakesAreRefusedAndChangeNothing() throws {
    var desk = SyncLedger(device: "desk")
    let a = try countdown("default", minutes: 5, at: morning)
    let cases: [(SyncRecord, String)] = [
        (SyncRecord(timerID: "bad timer", revision: Revision(wallMilliseconds: 1, counter: 0, device: "x"), activity: nil), "timer id"),
        (SyncRecord(timerID: "other", revision: Revision(wallMilliseconds: 1, counter: 0, device: "x"), activity: a), "is for timer"),
        (SyncRecord(timerID: "default", revision: Revision(wallMilliseconds: 1, counter: 0, device: ""), activity: nil), "device id"),
        (SyncRecord(timerID: "default", revision: Revision(wallMilliseconds: -5, counter: 0, device: "x"), activity: nil), "before 1970"),
    ]
    for (record, words) in cases {
        guard case .refused(let why) = desk.merge(record, now: morning) else {
            Issue.record("\(record) was not refused")
            continue
        }
        #expect(why.contains(words), "\(why)")
    }
    #expect(desk.entries.isEmpty)
    #expect(desk.clock.last == nil)
}

@Test func theLedgerSavedAndLoadedContinuesItsClockAndKeepsItsRecords() throws {
    var desk = SyncLedger(device: "desk")
    let a = try countdown("default", minutes: 10, at: morning)
    let first = desk.record("default", activity: a, now: morning)
    _ = desk.record("nap", activity: nil, expandedUntil: morning + .seconds(5), now: morning)
    // Sorted keys, as the state file writes them.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let bytes = try encoder.encode(desk)
    var restored = try JSONDecoder().decode(SyncLedger.self, from: bytes)
    #expect(restored == desk)
    // A restart whose wall clock went back an hour still makes a later revision.
    let next = restored.record("default", activity: nil, now: morning - .seconds(3600))
    #expect(next.revision > first.revision)
    #expect(next.revision > (desk.record(for: "nap")?.revision ?? first.revision))
    // The same ledger is the same bytes (the state file does not churn).
    #expect(try encoder.encode(desk) == bytes)
}

@Test func aSavedLedgerWithABadRecordIsRefusedByName() throws {
    let text = #"{"clock":{"device":"desk"},"entries":[{"record":{"timer":"no good","revision":{"wall_ms":1,"counter":0,"device":"x"}},"taken_at_ms":1}]}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(SyncLedger.self, from: Data(text.utf8)) }
    do { _ = try JSONDecoder().decode(SyncLedger.self, from: Data(text.utf8)) }
    catch { #expect("\(error)".contains("no good")) }
}

@Test func aChangeMadeWithoutSeeingOursIsAConflictAndOneMadeOnItIsNot() throws {
    var desk = SyncLedger(device: "desk")
    var bed = SyncLedger(device: "bed")
    let start = desk.record("default", activity: try countdown("default", minutes: 20, at: morning), now: morning)
    #expect(start.basis == nil)
    _ = bed.merge(start, now: morning)
    // In step: bed pauses what it was shown (desk's start); desk takes it, no conflict.
    let pause = bed.record("default", activity: nil, now: morning + .seconds(10))
    #expect(pause.basis == start.revision)
    #expect(desk.merge(pause, now: morning + .seconds(10)) == .taken(replaced: start))
    #expect(!pause.overrides(unseen: start))
    // A partition: each changes the timer on the record it last saw (bed's pause).
    let deskChange = desk.record("default", activity: nil, now: morning + .seconds(20))
    let bedChange = bed.record("default", activity: nil, now: morning + .seconds(25))
    #expect(deskChange.basis == pause.revision && bedChange.basis == pause.revision)
    // When they meet, bed's later change replaces desk's, which bed never saw: a conflict.
    #expect(desk.merge(bedChange, now: morning + .seconds(30)) == .taken(replaced: deskChange))
    #expect(bedChange.overrides(unseen: deskChange))
    // Desk's older one, arriving at bed, replaces nothing: bed's side has no conflict to report.
    #expect(bed.merge(deskChange, now: morning + .seconds(30)) == .older(current: bedChange))
    // The basis crosses the wire.
    let bytes = try JSONEncoder().encode(bedChange)
    #expect(try JSONDecoder().decode(SyncRecord.self, from: bytes) == bedChange)
}
