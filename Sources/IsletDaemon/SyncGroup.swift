import FoundationEssentials
import IsletSystem
import IsletCore
import IsletSync
import IsletMQTT
import IsletProtocol
import IsletConfig

/// What the sync part asks of the daemon.
protocol SyncGroupDelegate: AnyObject {
    /// Another display's record is the timer's state now (already in the ledger).
    func syncAdopt(_ record: SyncRecord)
    /// The activities this display holds.
    var syncActivities: [Activity] { get }
    /// Marks a timer's activity stale (this display's clock disagrees with its group) or fresh.
    func syncMark(_ timerID: String, stale: Bool)
}

/// The sync group (docs/SYNC.md): one more part of the loop, riding the MQTT bridge's link.
/// It owns the group's ledger (`SyncLedger`: the newest record of each timer, the hybrid
/// clock, the tombstones) and the peers' clock readings (`PeerClocks`). A change made here
/// becomes a record, published retained; a record from another display that is newer than
/// the one held is taken and handed to the daemon; an older one is answered with ours.
/// The rule itself lives in IsletSync, pure and property-tested; this file is its plumbing.
final class SyncGroup {
    private let ctx: DaemonContext
    let settings: SyncSettings
    let device: String
    let topics: GroupTopics
    private let link: MQTTLink
    private(set) var ledger: SyncLedger
    private var clocks: PeerClocks
    weak var delegate: (any SyncGroupDelegate)?

    /// Timers whose record is to be published (made here, or to correct an older copy).
    private var outbox: Set<String> = []
    /// This connection's join marker, until it comes back.
    private var joinToken: String?
    /// The newest record heard of each timer in this connection: after the join, ours that
    /// the broker lacks (it restarted empty, or we were cut off) are published.
    private var heard: [String: Revision] = [:]
    /// The group's retained state was taken once since the start.
    private(set) var joined = false
    /// Until then the panel shows nothing (never an old timer), at most this long.
    private let holdUntil: MonotonicInstant
    private var joinNote: String?
    private var beaconDue: MonotonicInstant?
    private var lastBeacon: MonotonicInstant?
    private(set) var lastConflict: String?
    /// The clock was judged off at the last look.
    private(set) var clockOff = false
    /// Timers this part marked stale for the clock (only those it marks fresh again).
    private var markedStale: Set<String> = []
    /// The ledger changed since the book last took a copy to save.
    private var ledgerChanged = false
    /// Corrections (ours answering an older or losing copy): at most one per timer per
    /// `correctionIntervalMs`, so replays of an old record cost one publish, not one each.
    private var lastCorrection: [String: MonotonicInstant] = [:]
    private var correctionDue: [String: MonotonicInstant] = [:]

    /// The first frame waits this long at most for the group's state (a broker that does not
    /// answer must not keep the panel dark).
    static let joinTimeoutMs: Int64 = 5_000
    static let beaconIntervalMs: Int64 = 30_000
    static let correctionIntervalMs: Int64 = 10_000
    /// Remote revisions may be this far ahead of this display's clock beyond the skew bound
    /// (delivery, and a beacon's age): docs/SYNC.md "Bounds".
    static let aheadMarginMs: Int64 = 1_000

    init(_ ctx: DaemonContext, settings: SyncSettings, device: String, link: MQTTLink, restoring saved: SyncLedger?) {
        self.ctx = ctx
        self.settings = settings
        self.device = device
        self.link = link
        topics = GroupTopics(group: settings.group ?? "islet")
        clocks = PeerClocks(boundMilliseconds: Int64((settings.skewBoundSeconds * 1000).rounded()))
        holdUntil = ctx.mono.adding(milliseconds: Self.joinTimeoutMs)
        if var saved, saved.device == device {
            // A ledger saved before the bounds existed may hold a poisoned clock: healed, once.
            saved.aheadLimitMilliseconds = Self.aheadLimit(settings)
            if let note = saved.heal(now: ctx.clock.now()) {
                ctx.log.warning("sync: the saved group state was out of bounds and was repaired: \(note); the activities are kept")
                ledgerChanged = true
            }
            ledger = saved
        } else {
            // A new name (or a first start): a new clock that is still later than every saved record.
            var l = SyncLedger(device: device)
            let now = ctx.clock.now()
            l.aheadLimitMilliseconds = Self.aheadLimit(settings)
            for e in saved?.entries.values.sorted(by: { $0.record.revision < $1.record.revision }) ?? [] { _ = l.merge(e.record, now: now) }
            ledger = l
            ledgerChanged = true
        }
        ledger.aheadLimitMilliseconds = Self.aheadLimit(settings)
    }

    static func aheadLimit(_ settings: SyncSettings) -> Int64 {
        Int64((settings.skewBoundSeconds * 1000).rounded()) + aheadMarginMs
    }

    /// Activities this display holds that the group has no record of (made before `[sync]`
    /// was set, or while its ledger was lost) join the group as changes of this display.
    func adoptLocal(_ activities: [Activity], now: Instant) {
        for a in activities where ledger.record(for: a.timerID) == nil {
            recordLocal(a.timerID, activity: a, expandedUntil: nil, now: now)
        }
    }

    // MARK: changes made here

    /// A change made on this display (a button, a socket request, an MQTT command, a start
    /// rolled back): its record, published at the end of the turn.
    func recordLocal(_ timerID: String, activity: Activity?, expandedUntil: Instant?, now: Instant) {
        // Stale is this display's own judgement of its clock, not the group's state.
        var shared = activity
        shared?.content.isStale = false
        _ = ledger.record(timerID, activity: shared, expandedUntil: expandedUntil, now: now)
        outbox.insert(timerID)
        ledgerChanged = true
    }

    /// The ledger to save, when it changed since the last call.
    func takeLedgerIfChanged() -> SyncLedger? {
        guard ledgerChanged else { return nil }
        ledgerChanged = false
        return ledger
    }

    // MARK: the link (called by the bridge)

    func linkConnected() {
        heard = [:]
        joinToken = nil
        link.subscribe(topics.all)
        beacon()
    }

    /// The broker queued the group's retained records when it took the subscription; the
    /// marker, published once its SUBACK is here, is queued after all of them, so when it comes
    /// back every retained record has been taken. (Published together with the SUBSCRIBE, it
    /// was seen overtaking them.)
    func linkSubscribed(_ filter: String) {
        guard filter == topics.all else { return }
        let token = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        joinToken = token
        link.send(topics.join(device), Array(token.utf8), retain: false)
    }

    func linkLost() {
        joinToken = nil
        beaconDue = nil
    }

    /// Whether a topic is the group's (the bridge hands those here).
    func handles(_ topic: String) -> Bool { topics.kind(of: topic) != nil }

    func received(topic: String, payload: [UInt8], retained: Bool) {
        guard let kind = topics.kind(of: topic) else { return }
        switch kind {
        case .state(let timer):
            // An empty retained message is a cleared topic, not a record.
            guard !payload.isEmpty else { return }
            takeRecord(payload, timer: timer, topic: topic)
        case .clock(let peer):
            guard peer != device, clocks.wouldHear(peer, monotonicMs: ctx.mono.milliseconds) else { return }
            heardBeacon(payload, from: peer, topic: topic)
        case .join(let who):
            guard who == device, let token = joinToken, payload == Array(token.utf8) else { return }
            finishJoin()
        }
    }

    private func takeRecord(_ payload: [UInt8], timer: String, topic: String) {
        let record: SyncRecord
        switch SyncWire.record(payload, topicTimer: timer) {
        case .success(let r): record = r
        case .failure(let e):
            warn("the record on \(topic) was refused: \(e); ignored")
            return
        }
        let now = ctx.clock.now()
        let merge = ledger.merge(record, now: now)
        switch merge {
        case .taken, .duplicate, .older:
            // Bounded by the ledger: only timers it holds are remembered for the join.
            if ledger.record(for: timer) != nil { heard[timer] = max(heard[timer] ?? record.revision, record.revision) }
        case .deferred, .refused:
            break
        }
        react(to: merge, of: record, topic: topic, now: now)
    }

    /// What a merge leads to: adopt, correct, or say why not.
    private func react(to merge: SyncLedger.Merge, of record: SyncRecord, topic: String, now: Instant) {
        let timer = record.timerID
        switch merge {
        case .taken(let replaced):
            ledgerChanged = true
            if let mine = replaced, mine.revision.device == device, record.overrides(unseen: mine) {
                // Theirs was made without seeing ours: a partition's conflict. The rule (the
                // later change wins) has decided; the display whose change lost says so.
                let what = "this display's change of timer \"\(timer)\" (\(Self.describe(mine.activity, now: now))) was replaced by \(record.revision.device)'s later one (\(Self.describe(record.activity, now: now)))"
                lastConflict = what
                ctx.log.notice("sync: \(what)")
            }
            delegate?.syncAdopt(record)
        case .duplicate:
            break
        case .older:
            // The sender, or the broker's retained copy, is behind: ours goes out again (once
            // per interval, however often the old copy comes).
            scheduleCorrection(timer)
        case .deferred(let ahead):
            warn("the record on \(topic) is dated \(ahead) ms ahead of this display's clock (bound \(ledger.aheadLimitMilliseconds) ms): held until this clock gets there")
        case .refused(let why):
            warn("the record on \(topic) was refused: \(why)")
        }
    }

    private func scheduleCorrection(_ timer: String) {
        guard correctionDue[timer] == nil else { return }
        let mono = ctx.mono
        let earliest = lastCorrection[timer].map { $0.adding(milliseconds: Self.correctionIntervalMs) } ?? mono
        correctionDue[timer] = max(mono, earliest)
    }

    /// Corrections whose time has come join the outbox; held records whose time has come are taken.
    private func takeDue() {
        let mono = ctx.mono
        for (timer, due) in correctionDue where mono >= due {
            correctionDue[timer] = nil
            lastCorrection[timer] = mono
            outbox.insert(timer)
        }
        if lastCorrection.count > SyncLedger.maximumEntries {
            for (timer, at) in lastCorrection where mono >= at.adding(milliseconds: Self.correctionIntervalMs) { lastCorrection[timer] = nil }
        }
        let now = ctx.clock.now()
        for (record, merge) in ledger.takeDue(now: now) {
            react(to: merge, of: record, topic: topics.state(record.timerID), now: now)
        }
    }

    private func finishJoin() {
        joinToken = nil
        // What the broker did not hold (it restarted without persistence, or our changes were
        // made while cut off) goes out now: the others take what is newer than theirs.
        for (timer, e) in ledger.entries where heard[timer].map({ $0 < e.record.revision }) ?? true {
            outbox.insert(timer)
        }
        guard !joined else { return }
        joined = true
        let now = ctx.clock.now()
        ctx.log.notice("sync: joined group \(settings.group ?? "") as \(device): \(ledger.entries.count) records, \(ledger.activities(at: now).count) activities")
    }

    // MARK: clocks

    private func beacon() {
        guard link.isUp else { return }
        let b = SyncWire.Beacon(device: device, wallMs: ctx.loopClock.wallMilliseconds())
        if let bytes = try? JSONEncoder().encode(b) { link.send(topics.clock(device), Array(bytes), retain: false) }
        lastBeacon = ctx.mono
        beaconDue = ctx.mono.adding(milliseconds: Self.beaconIntervalMs)
    }

    private func heardBeacon(_ payload: [UInt8], from peer: String, topic: String) {
        let b: SyncWire.Beacon
        switch SyncWire.beacon(payload, peer: peer) {
        case .success(let v): b = v
        case .failure(let e):
            warn("the clock beacon on \(topic): \(e); ignored")
            return
        }
        let mono = ctx.mono
        // A newcomer takes a seat if one is free (PeerClocks: bounded, first come).
        let new = clocks.heard(peer, theirWallMs: b.wallMs, ourWallMs: ctx.loopClock.wallMilliseconds(), monotonicMs: mono.milliseconds)
        // A display that just came is answered soon, so it need not wait 30 s to judge its
        // clock; several newcomers at once share one answer (at most one beacon in 250 ms).
        if new {
            let soon = max(mono, lastBeacon.map { $0.adding(milliseconds: 250) } ?? mono)
            beaconDue = min(beaconDue ?? soon, soon)
        }
    }

    // MARK: the loop

    /// Whether the panel waits for the group's state (at the start, at most `joinTimeoutMs`).
    func holdsFrames() -> Bool {
        if joined || joinNote != nil { return false }
        guard ctx.mono >= holdUntil else { return true }
        joinNote = "the group's state did not arrive within \(Self.joinTimeoutMs / 1000) s of the start; this display showed its own saved state until it did"
        ctx.log.notice("sync: the group's state did not arrive within \(Self.joinTimeoutMs / 1000) s (\(link.isUp ? "no answer from the broker" : "the broker is not reachable yet")); showing this display's own saved state meanwhile")
        return false
    }

    /// The turn's work: the clock's verdict, and the beacon when due.
    func afterEvents() {
        let mono = ctx.mono
        takeDue()
        if let due = beaconDue, mono >= due { beacon() }
        let off: Bool
        if case .disagrees = clocks.verdict(monotonicMs: mono.milliseconds) { off = true } else { off = false }
        if off != clockOff {
            clockOff = off
            switch clocks.verdict(monotonicMs: mono.milliseconds) {
            case .disagrees(let ms, let peers):
                ctx.log.warning("sync: this display's clock is \(abs(ms) / 1000) s \(ms < 0 ? "ahead of" : "behind") \(peers.joined(separator: ", ")) (bound \(StrictJSON.plain(settings.skewBoundSeconds)) s): its times are shown stale until the clocks agree (check NTP: timedatectl timesync-status)")
            case .agrees, .alone:
                ctx.log.notice("sync: this display's clock agrees with its group again")
            }
        }
        guard let delegate else { return }
        if off {
            // Every turn, not only at the change: an activity taken meanwhile is marked too.
            for a in delegate.syncActivities where !a.content.isStale {
                markedStale.insert(a.timerID)
                delegate.syncMark(a.timerID, stale: true)
            }
        } else if !markedStale.isEmpty {
            let ids = delegate.syncActivities.map(\.timerID)
            for t in markedStale.sorted() where ids.contains(t) { delegate.syncMark(t, stale: false) }
            markedStale = []
        }
    }

    /// Publishes the records due (after the frame is on the bus).
    func publishIfDue() {
        guard link.isUp, !outbox.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for timer in outbox.sorted() {
            guard let r = ledger.record(for: timer), let bytes = try? encoder.encode(r) else { continue }
            ctx.log.debug("sync: publishing \(timer) at \(r.revision)")
            link.send(topics.state(timer), Array(bytes), retain: true,
                      expirySeconds: UInt32(SyncLedger.retainedLifetime.components.seconds))
        }
        outbox = []
        link.flush()
    }

    var nextDeadline: MonotonicInstant? {
        let held = ledger.nextPendingWallMilliseconds.map { ctx.clock.monotonicInstant(of: Instant(milliseconds: $0)) }
        return [beaconDue, joined || joinNote != nil ? nil : holdUntil, correctionDue.values.min(), held].compactMap { $0 }.min()
    }

    func status() -> SyncStatus {
        let mono = ctx.mono.milliseconds
        let (clock, offset, who): (String, Double?, [String]?) = switch clocks.verdict(monotonicMs: mono) {
        case .alone: ("alone", nil, nil)
        case .agrees: ("agrees", nil, nil)
        case .disagrees(let ms, let peers): ("off", Double(ms) / 1000, peers)
        }
        return SyncStatus(group: settings.group ?? "", device: device, joined: joined, joinNote: joinNote,
                          peers: clocks.peers(monotonicMs: mono), clock: clock, clockOffsetSeconds: offset,
                          clockDisagrees: who, skewBoundSeconds: settings.skewBoundSeconds,
                          records: ledger.entries.count, lastConflict: lastConflict)
    }

    // MARK: helpers

    private func warn(_ message: String) {
        ctx.log.limited(.warning, topic: "sync-input", nowMs: ctx.mono.milliseconds, "sync: \(message)")
    }

    /// An activity in a few words, for the conflict's log line.
    static func describe(_ a: Activity?, now: Instant) -> String {
        guard let a = TimerMachine.advance(a, to: now).activity else { return "no activity" }
        return a.phase.rawValue
    }
}
