import IsletClock
import IsletParts
import FoundationEssentials
import IsletSystem
import IsletCore
import IsletSync
import IsletMQTT
import IsletProtocol
import IsletConfig

/// The sync group (docs/SYNC.md): one more part of the loop, riding the MQTT link beside the
/// bridge. It owns the group's ledger (`SyncLedger`: the newest record of each timer, the
/// hybrid clock, the tombstones) and the peers' clock readings (`PeerClocks`). A change made
/// here becomes a record, published retained; a record from another display that is newer
/// than the one held is taken and handed to the daemon; an older one is answered with ours.
/// The rule itself lives in IsletSync, pure and property-tested; this file is its plumbing.
package final class SyncGroup: DaemonPart, MQTTLinkListener {
    private let env: PartEnvironment
    package let settings: SyncSettings
    package let device: String
    package let topics: GroupTopics
    private let link: MQTTLink
    package private(set) var ledger: SyncLedger
    private var clocks: PeerClocks
    private weak var inbox: (any Inbox)?
    private var join: Join
    private var beacons = Beacons()
    private var clockMarks = ClockMarks()
    private var outgoing = Outgoing()
    private var corrections = Corrections()
    package private(set) var lastConflict: String?

    /// The first frame waits this long at most for the group's state (a broker that does not
    /// answer must not keep the panel dark).
    package static let joinTimeoutMs: Int64 = 5_000
    package static let beaconIntervalMs: Int64 = 30_000
    package static let correctionIntervalMs: Int64 = 10_000
    /// Remote revisions may be this far ahead of this display's clock beyond the skew bound
    /// (delivery, and a beacon's age): docs/SYNC.md "Bounds".
    package static let aheadMarginMs: Int64 = 1_000

    package init(_ env: PartEnvironment, settings: SyncSettings, device: String, link: MQTTLink, restoring saved: SyncLedger?) {
        self.env = env
        self.settings = settings
        self.device = device
        self.link = link
        topics = GroupTopics(group: settings.group ?? "islet")
        clocks = PeerClocks(boundMilliseconds: Int64((settings.skewBoundSeconds * 1000).rounded()))
        join = Join(holdUntil: env.mono.adding(milliseconds: Self.joinTimeoutMs))
        if var saved, saved.device == device {
            // A ledger saved before the bounds existed may hold a poisoned clock: healed, once.
            saved.aheadLimitMilliseconds = Self.aheadLimit(settings)
            if let note = saved.heal(now: env.clock.now()) {
                env.log.warning("sync: the saved group state was out of bounds and was repaired: \(note); the activities are kept")
                outgoing.ledgerChanged = true
            }
            ledger = saved
        } else {
            // A new name (or a first start): a new clock that is still later than every saved record.
            var l = SyncLedger(device: device)
            let now = env.clock.now()
            l.aheadLimitMilliseconds = Self.aheadLimit(settings)
            for e in saved?.entries.values.sorted(by: { $0.record.revision < $1.record.revision }) ?? [] { _ = l.merge(e.record, now: now) }
            ledger = l
            outgoing.ledgerChanged = true
        }
        ledger.aheadLimitMilliseconds = Self.aheadLimit(settings)
    }

    package static func aheadLimit(_ settings: SyncSettings) -> Int64 {
        Int64((settings.skewBoundSeconds * 1000).rounded()) + aheadMarginMs
    }

    /// Activities this display holds that the group has no record of (made before `[sync]`
    /// was set, or while its ledger was lost) join the group as changes of this display.
    package func restored(_ restored: Restored) {
        for a in restored.activities where ledger.record(for: a.timerID) == nil {
            recordLocal(a.timerID, activity: a, expandedUntil: nil, now: restored.now)
        }
    }

    // MARK: changes made here

    /// A change made on this display (a button, a socket request, an MQTT command, a start
    /// rolled back): its record, published at the end of the turn.
    package func recordLocal(_ timerID: String, activity: Activity?, expandedUntil: Instant?, now: Instant) {
        // Stale is this display's own judgement of its clock, not the group's state.
        var shared = activity
        shared?.content.isStale = false
        _ = ledger.record(timerID, activity: shared, expandedUntil: expandedUntil, now: now)
        outgoing.timers.insert(timerID)
        outgoing.ledgerChanged = true
    }

    /// A person's change (or a start rolled back), as it happens: its record, before any
    /// record heard later in the same turn.
    package var summary: String? { "in sync group \(settings.group ?? "") as \(device)" }

    package func take(_ effect: DaemonEffect, _ turn: TurnView) {
        guard case .share(let timer, let activity, let until) = effect else { return }
        recordLocal(timer, activity: activity, expandedUntil: until, now: turn.now)
    }

    /// The ledger is saved with the book, when it changed.
    package func save(into state: any SavedBeside) {
        guard outgoing.ledgerChanged else { return }
        outgoing.ledgerChanged = false
        state.keep(SavedLedger(ledger: ledger))
    }

    package func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {
        self.inbox = inbox
        link.listen(self)
        try link.attach(to: loop)
    }

    // MARK: the link

    package func linkConnected() {
        join.heard = [:]
        join.token = nil
        link.subscribe(topics.all)
        beacon()
    }

    /// The broker queued the group's retained records when it took the subscription; the
    /// marker, published once its SUBACK is here, is queued after all of them, so when it comes
    /// back every retained record has been taken. (Published together with the SUBSCRIBE, it
    /// was seen overtaking them.)
    package func linkSubscribed(_ filter: String) {
        guard filter == topics.all else { return }
        let token = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        join.token = token
        link.send(topics.join(device), Array(token.utf8), retain: false)
    }

    package func linkLost() {
        join.token = nil
        beacons.due = nil
    }

    /// Whether a topic is the group's (the link hands those here).
    package func handles(_ topic: String) -> Bool { topics.kind(of: topic) != nil }

    package func linkReceived(topic: String, payload: [UInt8], retained: Bool, correlation: [UInt8]?) {
        guard let kind = topics.kind(of: topic) else { return }
        switch kind {
        case .state(let timer):
            // An empty retained message is a cleared topic, not a record.
            guard !payload.isEmpty else { return }
            takeRecord(payload, timer: timer, topic: topic)
        case .clock(let peer):
            guard peer != device, clocks.wouldHear(peer, monotonicMs: env.mono.milliseconds) else { return }
            heardBeacon(payload, from: peer, topic: topic)
        case .join(let who):
            guard who == device, let token = join.token, payload == Array(token.utf8) else { return }
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
        let now = env.clock.now()
        let merge = ledger.merge(record, now: now)
        switch merge {
        case .taken, .duplicate, .older:
            // Bounded by the ledger: only timers it holds are remembered for the join.
            if ledger.record(for: timer) != nil { join.heard[timer] = max(join.heard[timer] ?? record.revision, record.revision) }
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
            outgoing.ledgerChanged = true
            if let mine = replaced, mine.revision.device == device, record.overrides(unseen: mine) {
                // Theirs was made without seeing ours: a partition's conflict. The rule (the
                // later change wins) has decided; the display whose change lost says so.
                let what = "this display's change of timer \"\(timer)\" (\(Self.describe(mine.activity, now: now))) was replaced by \(record.revision.device)'s later one (\(Self.describe(record.activity, now: now)))"
                lastConflict = what
                env.log.notice("sync: \(what)")
            }
            inbox?.post(.outside(OutsideChange(timer: record.timerID, activity: record.activity,
                                               expandedUntil: record.expandedUntil, origin: "sync: \(record.revision.device)")))
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
        guard corrections.due[timer] == nil else { return }
        let mono = env.mono
        let earliest = corrections.last[timer].map { $0.adding(milliseconds: Self.correctionIntervalMs) } ?? mono
        corrections.due[timer] = max(mono, earliest)
    }

    /// Corrections whose time has come join the outbox; held records whose time has come are taken.
    private func takeDue() {
        let mono = env.mono
        for (timer, due) in corrections.due where mono >= due {
            corrections.due[timer] = nil
            corrections.last[timer] = mono
            outgoing.timers.insert(timer)
        }
        if corrections.last.count > SyncLedger.maximumEntries {
            for (timer, at) in corrections.last where mono >= at.adding(milliseconds: Self.correctionIntervalMs) { corrections.last[timer] = nil }
        }
        let now = env.clock.now()
        for (record, merge) in ledger.takeDue(now: now) {
            react(to: merge, of: record, topic: topics.state(record.timerID), now: now)
        }
    }

    private func finishJoin() {
        join.token = nil
        // What the broker did not hold (it restarted without persistence, or our changes were
        // made while cut off) goes out now: the others take what is newer than theirs.
        for (timer, e) in ledger.entries where join.heard[timer].map({ $0 < e.record.revision }) ?? true {
            outgoing.timers.insert(timer)
        }
        guard !join.joined else { return }
        join.joined = true
        let now = env.clock.now()
        env.log.notice("sync: joined group \(settings.group ?? "") as \(device): \(ledger.entries.count) records, \(ledger.activities(at: now).count) activities")
    }

    // MARK: clocks

    private func beacon() {
        guard link.isUp else { return }
        let b = SyncWire.Beacon(device: device, wallMs: env.loopClock.wallMilliseconds())
        if let bytes = try? JSONEncoder().encode(b) { link.send(topics.clock(device), Array(bytes), retain: false) }
        beacons.last = env.mono
        beacons.due = env.mono.adding(milliseconds: Self.beaconIntervalMs)
    }

    private func heardBeacon(_ payload: [UInt8], from peer: String, topic: String) {
        let b: SyncWire.Beacon
        switch SyncWire.beacon(payload, peer: peer) {
        case .success(let v): b = v
        case .failure(let e):
            warn("the clock beacon on \(topic): \(e); ignored")
            return
        }
        let mono = env.mono
        // A newcomer takes a seat if one is free (PeerClocks: bounded, first come).
        let new = clocks.heard(peer, theirWallMs: b.wallMs, ourWallMs: env.loopClock.wallMilliseconds(), monotonicMs: mono.milliseconds)
        // A display that just came is answered soon, so it need not wait 30 s to judge its
        // clock; several newcomers at once share one answer (at most one beacon in 250 ms).
        if new {
            let soon = max(mono, beacons.last.map { $0.adding(milliseconds: 250) } ?? mono)
            beacons.due = min(beacons.due ?? soon, soon)
        }
    }

    // MARK: the loop

    /// Whether the panel waits for the group's state (at the start, at most `joinTimeoutMs`).
    package var holdsFrames: Bool {
        if join.joined || join.note != nil { return false }
        guard env.mono >= join.holdUntil else { return true }
        join.note = "the group's state did not arrive within \(Self.joinTimeoutMs / 1000) s of the start; this display showed its own saved state until it did"
        env.log.notice("sync: the group's state did not arrive within \(Self.joinTimeoutMs / 1000) s (\(link.isUp ? "no answer from the broker" : "the broker is not reachable yet")); showing this display's own saved state meanwhile")
        return false
    }

    /// The turn's work: the clock's verdict, and the beacon when due.
    package func afterEvents(_ turn: TurnView) {
        let mono = env.mono
        takeDue()
        if let due = beacons.due, mono >= due { beacon() }
        let off: Bool
        if case .disagrees = clocks.verdict(monotonicMs: mono.milliseconds) { off = true } else { off = false }
        if off != clockMarks.off {
            clockMarks.off = off
            switch clocks.verdict(monotonicMs: mono.milliseconds) {
            case .disagrees(let ms, let peers):
                env.log.warning("sync: this display's clock is \(abs(ms) / 1000) s \(ms < 0 ? "ahead of" : "behind") \(peers.joined(separator: ", ")) (bound \(StrictJSON.plain(settings.skewBoundSeconds)) s): its times are shown stale until the clocks agree (check NTP: timedatectl timesync-status)")
            case .agrees, .alone:
                env.log.notice("sync: this display's clock agrees with its group again")
            }
        }
        guard let inbox else { return }
        if off {
            // Every turn, not only at the change: an activity taken meanwhile is marked too.
            for a in turn.activities where !a.content.isStale {
                clockMarks.marked.insert(a.timerID)
                inbox.post(.intent(.markStale, timer: a.timerID, source: nil))
            }
        } else if !clockMarks.marked.isEmpty {
            let ids = turn.activities.map(\.timerID)
            for t in clockMarks.marked.sorted() where ids.contains(t) { inbox.post(.intent(.markFresh, timer: t, source: nil)) }
            clockMarks.marked = []
        }
    }

    /// Publishes the records due (after the frame is on the bus).
    package func publish(_ outcome: TurnOutcome) { publishIfDue() }

    package func shutdown(_ turn: TurnView) { publishIfDue() }

    private func publishIfDue() {
        guard link.isUp, !outgoing.timers.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for timer in outgoing.timers.sorted() {
            guard let r = ledger.record(for: timer), let bytes = try? encoder.encode(r) else { continue }
            env.log.debug("sync: publishing \(timer) at \(r.revision)")
            link.send(topics.state(timer), Array(bytes), retain: true,
                      expirySeconds: UInt32(SyncLedger.retainedLifetime.components.seconds))
        }
        outgoing.timers = []
        link.flush()
    }

    package var nextDeadline: MonotonicInstant? {
        let held = ledger.nextPendingWallMilliseconds.map { env.clock.monotonicInstant(of: Instant(milliseconds: $0)) }
        return [beacons.due, join.joined || join.note != nil ? nil : join.holdUntil, corrections.due.values.min(), held].compactMap { $0 }.min()
    }

    package func report(into status: inout DaemonStatus, _ turn: TurnView) {
        let mono = env.mono.milliseconds
        let (clock, offset, who): (String, Double?, [String]?) = switch clocks.verdict(monotonicMs: mono) {
        case .alone: ("alone", nil, nil)
        case .agrees: ("agrees", nil, nil)
        case .disagrees(let ms, let peers): ("off", Double(ms) / 1000, peers)
        }
        status.set("sync", SyncStatus(group: settings.group ?? "", device: device, joined: join.joined, joinNote: join.note,
                          peers: clocks.peers(monotonicMs: mono), clock: clock, clockOffsetSeconds: offset,
                          clockDisagrees: who, skewBoundSeconds: settings.skewBoundSeconds,
                          records: ledger.entries.count, lastConflict: lastConflict))
    }

    // MARK: helpers

    private func warn(_ message: String) {
        env.log.limited(.warning, topic: "sync-input", nowMs: env.mono.milliseconds, "sync: \(message)")
    }

    /// An activity in a few words, for the conflict's log line.
    package static func describe(_ a: Activity?, now: Instant) -> String {
        guard let a = TimerMachine.advance(a, to: now).activity else { return "no activity" }
        return a.phase.rawValue
    }
}
