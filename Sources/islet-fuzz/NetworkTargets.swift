// The network's inputs (docs/SYNC.md and docs/MQTT.md "Threat model"): a sync record, a clock
// beacon, an MQTT command with its correlation data, a retained topic read back. Each target
// drives the pure code the daemon runs on those bytes, then checks the bounds it promises.
import FoundationEssentials
import IsletCore
import IsletSync
import IsletMQTT
import IsletProtocol

/// The input cut into messages at 0x0A; the byte before each (if any) moves the clock.
private func messages(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(64).map(Array.init)
}

private let base = Instant(milliseconds: 1_800_000_000_000)

enum NetworkTargets {
    /// Records from anyone, in any order: merged, held, taken when due, mixed with local changes,
    /// saved and loaded; every bound holds after each step and the save round-trips.
    static func sync(_ bytes: [UInt8]) {
        var ledger = SyncLedger(device: "desk")
        var now = base
        for (i, m) in messages(bytes).enumerated() {
            // A message's first byte steps the clock (0 to 25.5 s), its rest is the payload.
            now = now + .milliseconds(Int64(m.first ?? 0) * 100)
            let payload = Array(m.dropFirst())
            let timer = payload.count > 12 ? "t\(payload[12] % 24)" : "default"
            if case .success(let r) = SyncWire.record(payload, topicTimer: r0(payload) ?? timer) {
                // The record crosses the wire again unchanged (the tie-break compares bytes).
                guard let again = try? JSONEncoder().encode(r), let back = try? JSONDecoder().decode(SyncRecord.self, from: again), back == r else {
                    fail("sync: \(r.revision) does not survive encode and decode")
                }
                _ = ledger.merge(r, now: now)
            }
            if i % 5 == 4 { _ = ledger.record("default", activity: nil, now: now) }
            _ = ledger.takeDue(now: now)
            check(ledger, now: now)
        }
        guard let saved = try? JSONEncoder().encode(ledger) else { fail("sync: the ledger does not encode") }
        guard var loaded = try? JSONDecoder().decode(SyncLedger.self, from: saved) else { fail("sync: the saved ledger does not load") }
        _ = loaded.heal(now: now)
        if loaded.entries != ledger.entries || loaded.clock != ledger.clock { fail("sync: the ledger changed across save and load") }
        let next = loaded.record("default", activity: nil, now: now)
        if let last = ledger.clock.last, !(next.revision > last) { fail("sync: a change after the load is not later than \(last)") }
    }

    /// The timer a record names, so the topic matches it (the target checks the merge, not the topic rule).
    private static func r0(_ payload: [UInt8]) -> String? {
        struct T: Decodable { var timer: String }
        return try? JSONDecoder().decode(T.self, from: Data(payload)).timer
    }

    private static func check(_ l: SyncLedger, now: Instant) {
        if l.entries.count > SyncLedger.maximumEntries { fail("sync: \(l.entries.count) records kept") }
        if l.liveCount(at: now) > SyncLedger.maximumLive { fail("sync: \(l.liveCount(at: now)) live records kept") }
        if l.pending.count > SyncLedger.maximumPending { fail("sync: \(l.pending.count) records held") }
        if let last = l.clock.last {
            if !last.isInRange { fail("sync: the clock left its range: \(last)") }
            // Never ahead of this device's time by more than the bound (local changes are at `now`).
            if last.wallMilliseconds > now.milliseconds + l.aheadLimitMilliseconds { fail("sync: the clock ran ahead: \(last)") }
        }
    }

    /// Beacons under names anyone invents: each parsed as the daemon does, then heard; the
    /// seats stay bounded and a verdict never traps.
    static func beacon(_ bytes: [UInt8]) {
        var clocks = PeerClocks()
        var mono: Int64 = 0
        for m in messages(bytes) {
            mono += Int64(m.first ?? 0) * 1_000
            let rest = Array(m.dropFirst())
            // `name=` before the JSON names the topic's peer.
            let cut = rest.firstIndex(of: UInt8(ascii: "=")) ?? 0
            let peer = String(decoding: rest[..<cut], as: UTF8.self)
            if case .success(let b) = SyncWire.beacon(Array(rest[(cut < rest.count ? cut + 1 : cut)...]), peer: peer) {
                clocks.heard(peer, theirWallMs: b.wallMs, ourWallMs: base.milliseconds, monotonicMs: mono)
            } else if rest.count >= 8 {
                // Raw readings too: the clock arithmetic must take any Int64.
                let v = rest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
                clocks.heard("p\(rest[0] % 40)", theirWallMs: v, ourWallMs: base.milliseconds &- v, monotonicMs: mono)
            }
            if clocks.peers(monotonicMs: mono).count > PeerClocks.maximumPeers { fail("beacon: more than \(PeerClocks.maximumPeers) peers") }
            _ = clocks.verdict(monotonicMs: mono)
        }
    }

    /// A command as it arrives on `<prefix>/command`: the first byte says how many of the next
    /// are correlation data; the rest is the payload. One read (id and request), and the answers' ledger.
    static func command(_ bytes: [UInt8]) {
        var ledger = RequestLedger(capacity: 8, lifetimeMs: 1_000)
        var now: Int64 = 0
        for m in messages(bytes) {
            now += 100
            let n = min(Int(m.first ?? 0), max(0, m.count - 1))
            let payload = Array(m.dropFirst(1 + n))
            // Read once, as the bridge does: the id kept for any answer is the request's own.
            let read = ControlRequest.read(payload)
            let id = read.requestID
            if case .success(let r) = read.request, r.requestID != id {
                fail("mqtt: the id \(id ?? "nil") kept for the answer is not the request's \(r.requestID ?? "nil")")
            }
            if let id {
                if ledger.answer(for: id, nowMs: now) == nil { ledger.record(id, answer: payload, nowMs: now) }
            }
            if ledger.count > 8 { fail("mqtt: the answers' ledger holds \(ledger.count) of 8") }
        }
    }

    /// A retained topic read back at connect (activity and discovery config topics), and the
    /// group's topics: classified without trapping, and discovery's object keys one-to-one.
    static func topics(_ bytes: [UInt8]) {
        let topics = MQTTTopics(prefix: "islet/desk")
        let group = GroupTopics(group: "home")
        let discovery = HomeAssistantDiscovery(prefix: "homeassistant", node: "desk", topics: topics,
                                               device: .init(name: "Islet", model: "fuzz", version: "0"), defaultMinutes: 10)
        let parts = messages(bytes).map { String(decoding: $0, as: UTF8.self) }
        for t in parts {
            _ = topics.timer(ofActivityTopic: t)
            _ = group.kind(of: t)
            _ = discovery.isConfigTopic(t)
        }
        let timers = parts.filter(ActivityAttributes.isValidTimerID)
        var keys: [String: String] = [:]
        for t in timers {
            let k = HomeAssistantDiscovery.objectKey(t)
            if let other = keys[k], other != t { fail("discovery: \(t) and \(other) share the object key \(k)") }
            keys[k] = t
            for topic in discovery.configTopics(timer: t) where !discovery.isConfigTopic(topic) { fail("discovery: \(topic) is not recognised as ours") }
        }
    }
}
