import Testing
import IsletCore
import IsletSync
import IsletTestSupport

/// A rogue member of the group (docs/SYNC.md "Threat model"): it publishes records with any
/// revision (absurd, years or minutes ahead, behind), forged content at revisions the honest
/// displays made, replays and duplicates, to any of the honest displays in any order, while
/// three honest displays with clocks within a second of each other make changes and correct
/// each other. Whatever it does, no display traps, every bound holds after every step, and once
/// it stops (and the clocks pass every held record) a full exchange leaves all honest displays
/// on one record per timer.
private func oneRogueCase(_ rng: inout SplitMix) -> String? {
    let devices = ["desk", "bed", "hall"]
    var ledgers = devices.map { SyncLedger(device: $0) }
    let skew = devices.map { _ in Int64(rng.int(1_001)) - 500 }
    let timers = ["default", "nap", "tea", "r1", "r2", "r3"]
    var real = 1_800_000_000_000 as Int64
    var inFlight: [(to: Int, record: SyncRecord)] = []
    var honest: [SyncRecord] = []

    func wall(_ d: Int) -> Instant { Instant(milliseconds: real + skew[d]) }

    func bounds(_ d: Int) -> String? {
        let l = ledgers[d], now = wall(d)
        if l.entries.count > SyncLedger.maximumEntries { return "\(devices[d]) holds \(l.entries.count) records" }
        if l.liveCount(at: now) > SyncLedger.maximumLive { return "\(devices[d]) holds \(l.liveCount(at: now)) live records" }
        if l.pending.count > SyncLedger.maximumPending { return "\(devices[d]) holds \(l.pending.count) records for later" }
        if let c = l.clock.last, !c.isInRange || c.wallMilliseconds > now.milliseconds + l.aheadLimitMilliseconds {
            return "\(devices[d])'s clock stands at \(c), its wall time \(now.milliseconds)"
        }
        return nil
    }

    func react(_ merge: SyncLedger.Merge, at d: Int) {
        // The protocol: an older or losing copy is answered with ours, to everyone.
        if case .older(let current) = merge { for o in 0..<3 where o != d { inFlight.append((o, current)) } }
    }

    func deliver(_ r: SyncRecord, to d: Int) -> String? {
        react(ledgers[d].merge(r, now: wall(d)), at: d)
        for (_, m) in ledgers[d].takeDue(now: wall(d)) { react(m, at: d) }
        return bounds(d)
    }

    func rogueRevision() -> Revision {
        let device = rng.bool() ? "rogue" : devices[rng.int(3)]   // it may claim any name
        switch rng.int(8) {
        case 0: return Revision(wallMilliseconds: .max, counter: .max, device: device)
        case 1: return Revision(wallMilliseconds: Revision.maximumWallMilliseconds, counter: UInt32(rng.int(3)) &+ .max &- 2, device: device)
        case 2: return Revision(wallMilliseconds: 4_102_444_800_000 + Int64(rng.int(1000)), counter: 0, device: device)
        case 3: return Revision(wallMilliseconds: -Int64(rng.int(1_000_000)) - 1, counter: 0, device: device)
        case 4: return Revision(wallMilliseconds: real + Int64(rng.int(3_600_000)), counter: UInt32(rng.int(5)), device: device)
        case 5: return Revision(wallMilliseconds: real + 2 * 86_400_000 + Int64(rng.int(1_000_000)), counter: .max, device: device)
        default: return Revision(wallMilliseconds: real - Int64(rng.int(600_000)), counter: UInt32(rng.int(4)), device: device)
        }
    }

    func rogueRecord() -> SyncRecord {
        let timer = timers[rng.int(timers.count)]
        let activity = rng.bool() ? try? countdown(timer, minutes: 1 + rng.int(60), at: Instant(milliseconds: real)) : nil
        // Forged: an honest record's exact revision with other content; or a plain replay.
        if !honest.isEmpty, rng.int(3) == 0 {
            var r = honest[rng.int(honest.count)]
            if rng.bool() { r.activity = r.activity == nil ? (try? countdown(r.timerID, minutes: 1 + rng.int(60), at: Instant(milliseconds: real))) : nil }
            return r
        }
        return SyncRecord(timerID: timer, revision: rogueRevision(), activity: activity)
    }

    for _ in 0..<(20 + rng.int(80)) {
        real += Int64(rng.int(2_000))
        let roll = rng.int(100)
        if roll < 25 {
            let d = rng.int(3)
            let timer = timers[rng.int(3)]
            let a = rng.int(3) == 0 ? nil : try? countdown(timer, minutes: 1 + rng.int(30), at: wall(d))
            let r = ledgers[d].record(timer, activity: a, now: wall(d))
            honest.append(r)
            for o in 0..<3 where o != d { inFlight.append((o, r)) }
            if let p = bounds(d) { return p }
        } else if roll < 55 {
            let r = rogueRecord()
            for _ in 0..<(1 + rng.int(4)) {
                if let p = deliver(r, to: rng.int(3)) { return "after the rogue's \(r.revision): \(p)" }
            }
        } else if !inFlight.isEmpty {
            let i = rng.int(inFlight.count)
            let m = inFlight[i]
            if rng.int(5) != 0 { inFlight.remove(at: i) }
            if let p = deliver(m.record, to: m.to) { return p }
        }
    }
    // Its last act: a forged copy of each timer's newest record, to one display only (the
    // case that once split a group for good).
    for t in timers {
        guard var r = ledgers[0].record(for: t) else { continue }
        r.activity = r.activity == nil ? (try? countdown(t, minutes: 1 + rng.int(60), at: Instant(milliseconds: real))) : nil
        if let p = deliver(r, to: rng.int(3)) { return p }
    }
    // The rogue stops. The clocks pass every record held for later (at most a day ahead), then
    // what is in flight arrives, then a full exchange until nothing changes.
    real += 86_400_000 + 60_000
    for d in 0..<3 { for (_, m) in ledgers[d].takeDue(now: wall(d)) { react(m, at: d) } }
    for round in 0..<12 {
        for d in 0..<3 { for e in ledgers[d].entries.values { for o in 0..<3 where o != d { inFlight.append((o, e.record)) } } }
        inFlight.shuffle(using: &rng)
        var guardCount = 0
        while !inFlight.isEmpty, guardCount < 100_000 {
            let m = inFlight.removeFirst()
            if let p = deliver(m.record, to: m.to) { return "exchange round \(round): \(p)" }
            guardCount += 1
        }
        if timers.allSatisfy({ t in ledgers.allSatisfy { $0.record(for: t) == ledgers[0].record(for: t) } }) { return nil }
    }
    for t in timers where !ledgers.allSatisfy({ $0.record(for: t) == ledgers[0].record(for: t) }) {
        return "timer \(t) did not converge: " + ledgers.map { "\($0.device) \($0.record(for: t).map { "\($0.revision)" } ?? "none")" }.joined(separator: ", ")
    }
    return nil
}

@Test func whateverARogueMemberPublishesTheHonestDisplaysStayBoundedAndConverge() {
    seededCases(1_500, seedVariable: "ISLET_ROGUE_SEED", defaultSeed: 0x0_0B_AD_35) { oneRogueCase(&$0) }
}
