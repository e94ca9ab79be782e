import FoundationEssentials
import IsletCore

/// What one device knows of its group: the newest record of each timer, its hybrid clock, and
/// the tombstones of ended activities. Pure (the wall time is passed in) and a value: the
/// daemon's sync part owns one and saves it with the state file.
///
/// The rule (docs/SYNC.md): for each timer the record with the newest revision wins, whatever
/// the order in which records arrive, and however often. A record is a whole state, not a
/// step, so a lost record is made good by any later one, and a full exchange of records makes
/// every device's ledger the same.
public struct SyncLedger: Hashable, Sendable {
    public struct Entry: Hashable, Sendable, Codable {
        public var record: SyncRecord
        /// When this device took the record (its own wall clock): a tombstone's age counts from here.
        public var takenAt: Instant

        enum CodingKeys: String, CodingKey { case record, takenAt = "taken_at_ms" }
        public init(record: SyncRecord, takenAt: Instant) { self.record = record; self.takenAt = takenAt }
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            record = try c.decode(SyncRecord.self, forKey: .record)
            takenAt = Instant(milliseconds: try c.decode(Int64.self, forKey: .takenAt))
        }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(record, forKey: .record)
            try c.encode(takenAt.milliseconds, forKey: .takenAt)
        }
    }

    public private(set) var clock: HybridClock
    public private(set) var entries: [String: Entry]
    /// Records from a clock ahead of ours by more than `aheadLimitMilliseconds` (but less than
    /// `refuseAheadMilliseconds`), each taken once our clock reaches it: nothing from the future
    /// is taken early, and an honest peer whose clock runs a little fast is only delayed. At
    /// most `maximumPending`; not saved (the broker's retained copy comes again at a join).
    public private(set) var pending: [String: SyncRecord] = [:]
    /// How far ahead of this device's wall clock a record's revision may be when it is taken
    /// (the skew bound plus a margin for delivery); the daemon sets it from `[sync] skew_bound`.
    public var aheadLimitMilliseconds: Int64 = 3_000

    /// A tombstone is kept this long after it was taken: longer than any activity can live
    /// (8 h active, then at most 4 h ended) plus the retained messages' expiry, so a record it
    /// shadows that turns up later is either older than it or of an activity long over.
    public static let tombstoneLifetime: Duration = .seconds(24 * 3600)
    /// Retained records expire on the broker after this long (MQTT 5 message expiry): an
    /// activity's whole life, plus an hour.
    public static let retainedLifetime: Duration = .seconds(13 * 3600)
    /// Records kept at most (live ones and tombstones); past it the oldest tombstones go first.
    public static let maximumEntries = 256
    /// Live records (an activity not yet dismissed) kept at most: the book's own bound. A record
    /// of a new timer past it is refused, so a flood of invented timers cannot grow the ledger,
    /// the state file or the panel's list.
    public static let maximumLive = 16
    /// Records waiting for this device's clock, at most; past it the one furthest ahead goes.
    public static let maximumPending = 32
    /// A record dated further ahead than this (a day) is refused outright, not held.
    public static let refuseAheadMilliseconds: Int64 = 24 * 3600 * 1000
    /// A saved clock further ahead of the newest instant the file knows than this is repaired
    /// at load: a clock stepped back by less keeps its order, a poisoned one heals.
    public static let savedClockSlackMilliseconds: Int64 = 3600 * 1000

    public init(device: String) {
        clock = HybridClock(device: device)
        entries = [:]
    }

    public var device: String { clock.device }

    /// How a received record was taken.
    public enum Merge: Hashable, Sendable {
        /// Newer than what was known: it is the timer's state now.
        case taken(replaced: SyncRecord?)
        /// The same record again (a duplicate, or this device's own record coming back).
        case duplicate
        /// Older than the record known, or a different record at the same revision that loses
        /// the tie-break: the sender (or the broker's retained copy) is behind, ours goes out.
        case older(current: SyncRecord)
        /// Dated ahead of this device's clock by more than the bound: held until the clock gets
        /// there (`takeDue`), by how many milliseconds.
        case deferred(aheadMilliseconds: Int64)
        /// Not a record any device makes, or one past a bound; nothing changed.
        case refused(String)
    }

    /// How far `revision` is ahead of the wall time `now` (negative: behind). Saturating.
    static func ahead(_ revision: Revision, of now: Instant) -> Int64 {
        let (d, overflow) = revision.wallMilliseconds.subtractingReportingOverflow(now.milliseconds)
        return overflow ? (revision.wallMilliseconds < 0 ? Int64.min : Int64.max) : d
    }

    /// Takes a record from another device (or the broker's retained copy).
    public mutating func merge(_ record: SyncRecord, now: Instant) -> Merge {
        if let why = record.problem { return .refused(why) }
        let ahead = Self.ahead(record.revision, of: now)
        if ahead > Self.refuseAheadMilliseconds {
            return .refused("its revision is \(ahead / 1000) s ahead of this display's clock (more than a day): a wrong clock or a forged record")
        }
        if ahead > aheadLimitMilliseconds {
            hold(record)
            return .deferred(aheadMilliseconds: ahead)
        }
        return take(record, now: now)
    }

    private mutating func take(_ record: SyncRecord, now: Instant) -> Merge {
        guard let current = entries[record.timerID] else {
            if record.activity != nil, isLive(record, at: now), liveCount(at: now) >= Self.maximumLive {
                return .refused("this display already holds \(Self.maximumLive) live records (the bound); a record of another timer is not taken")
            }
            clock.observe(record.revision)
            entries[record.timerID] = Entry(record: record, takenAt: now)
            compact(now: now)
            return .taken(replaced: nil)
        }
        clock.observe(record.revision)
        if record.revision == current.record.revision {
            if record == current.record { return .duplicate }
            // Two records at one revision (forged, or a copy changed on the way): every device
            // keeps the one whose canonical bytes are greater, so the group ends on one record.
            let theirs = Self.canonicalBytes(record), ours = Self.canonicalBytes(current.record)
            if theirs == ours { return .duplicate }
            guard ours.lexicographicallyPrecedes(theirs) else { return .older(current: current.record) }
        } else if record.revision < current.record.revision {
            return .older(current: current.record)
        }
        if !isLive(current.record, at: now), isLive(record, at: now), liveCount(at: now) >= Self.maximumLive {
            return .refused("this display already holds \(Self.maximumLive) live records (the bound); the tombstone of timer \"\(record.timerID)\" is kept")
        }
        entries[record.timerID] = Entry(record: record, takenAt: now)
        return .taken(replaced: current.record)
    }

    private mutating func hold(_ record: SyncRecord) {
        if let held = pending[record.timerID] {
            if held.revision < record.revision { pending[record.timerID] = record }
            return
        }
        if pending.count >= Self.maximumPending {
            // The one furthest ahead goes (an honest clock a little fast is nearest).
            guard let furthest = pending.values.max(by: { $0.revision < $1.revision }), record.revision < furthest.revision else { return }
            pending[furthest.timerID] = nil
        }
        pending[record.timerID] = record
    }

    /// The held records whose time has come, merged now, with how each was taken.
    public mutating func takeDue(now: Instant) -> [(record: SyncRecord, merge: Merge)] {
        let due = pending.values.filter { Self.ahead($0.revision, of: now) <= aheadLimitMilliseconds }
            .sorted { $0.revision < $1.revision }
        var out: [(SyncRecord, Merge)] = []
        for r in due {
            pending[r.timerID] = nil
            out.append((r, take(r, now: now)))
        }
        return out
    }

    /// When the next held record falls due, in this device's wall milliseconds (nil: none).
    public var nextPendingWallMilliseconds: Int64? {
        pending.values.map(\.revision.wallMilliseconds).min().map { $0 - aheadLimitMilliseconds }
    }

    /// A change made on this device: its record, with a revision later than every one seen.
    public mutating func record(_ timerID: String, activity: Activity?, expandedUntil: Instant? = nil, now: Instant) -> SyncRecord {
        let r = SyncRecord(timerID: timerID, revision: clock.tick(wallMilliseconds: now.milliseconds),
                           activity: activity, expandedUntil: expandedUntil, basis: entries[timerID]?.record.revision)
        entries[timerID] = Entry(record: r, takenAt: now)
        pending[timerID] = nil
        compact(now: now)
        return r
    }

    public func record(for timerID: String) -> SyncRecord? { entries[timerID]?.record }

    /// The group's activities at `now`: each record's activity with time's own transitions
    /// applied, dismissed ones gone; oldest start first, as the book keeps them.
    public func activities(at now: Instant) -> [Activity] {
        entries.values.compactMap { TimerMachine.advance($0.record.activity, to: now).activity }
            .sorted { $0.startedAt != $1.startedAt ? $0.startedAt < $1.startedAt : $0.timerID.utf8.lexicographicallyPrecedes($1.timerID.utf8) }
    }

    /// Whether a timer's record is a tombstone at `now`: its activity ended and was dismissed.
    public func isTombstone(_ e: Entry, at now: Instant) -> Bool { !isLive(e.record, at: now) }

    func isLive(_ r: SyncRecord, at now: Instant) -> Bool {
        r.activity != nil && TimerMachine.advance(r.activity, to: now).activity != nil
    }

    /// Live records held at `now`.
    public func liveCount(at now: Instant) -> Int {
        entries.values.reduce(0) { $0 + (isLive($1.record, at: now) ? 1 : 0) }
    }

    /// Forgets tombstones past their lifetime, then the oldest ones past the bound. A live
    /// record is never forgotten (at most `maximumLive` are taken).
    public mutating func compact(now: Instant) {
        for (id, e) in entries where now >= e.takenAt + Self.tombstoneLifetime && isTombstone(e, at: now) {
            entries[id] = nil
        }
        guard entries.count > Self.maximumEntries else { return }
        let tombstones = entries.filter { isTombstone($0.value, at: now) }
            .sorted { ($0.value.takenAt, $0.value.record.revision) < ($1.value.takenAt, $1.value.record.revision) }
        for (id, _) in tombstones.prefix(entries.count - Self.maximumEntries) { entries[id] = nil }
    }

    /// Brings a ledger read from disk within the bounds (one saved before they existed may hold
    /// a poisoned clock or records from far ahead): records dated more than
    /// `savedClockSlackMilliseconds` past the newest instant the file knows (now, or when a
    /// record was taken) are dropped, and the clock is repaired to the newest revision kept.
    /// Returns what was repaired, for one log line; nil when nothing was.
    public mutating func heal(now: Instant) -> String? {
        let known = max(now.milliseconds, entries.values.map(\.takenAt.milliseconds).max() ?? now.milliseconds)
        // Past the hour, the ahead bound too: a record taken legitimately at skew_bound's limit stays.
        let (limit, overflow) = known.addingReportingOverflow(Self.savedClockSlackMilliseconds + max(0, aheadLimitMilliseconds))
        let bound = overflow ? Revision.maximumWallMilliseconds : min(limit, Revision.maximumWallMilliseconds)
        let dropped = entries.filter { !$0.value.record.revision.isInRange || $0.value.record.revision.wallMilliseconds > bound }.keys.sorted()
        for id in dropped { entries[id] = nil }
        let floor = entries.values.map(\.record.revision).max()
        let before = clock.last
        let repaired = clock.repair(limitMilliseconds: bound, floor: floor)
        guard repaired || !dropped.isEmpty else { return nil }
        var parts: [String] = []
        if repaired { parts.append("its clock stood at \(before?.description ?? "?"), beyond this display's time; now \(clock.last?.description ?? "none")") }
        if !dropped.isEmpty { parts.append("\(dropped.count) record\(dropped.count == 1 ? "" : "s") dated beyond it dropped (\(dropped.prefix(5).joined(separator: ", ")))") }
        return parts.joined(separator: "; ")
    }

    /// A record's bytes in one canonical form (sorted keys): the last tie-break, the same on
    /// every device for the same record.
    static func canonicalBytes(_ r: SyncRecord) -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return (try? e.encode(r)).map { Array($0) } ?? []
    }
}

extension SyncLedger: Codable {
    enum CodingKeys: String, CodingKey { case clock, entries }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clock = try c.decode(HybridClock.self, forKey: .clock)
        var map: [String: Entry] = [:]
        for e in try c.decode([Entry].self, forKey: .entries) {
            // A record dated past the year 9999 is dropped by `heal`, not a broken file.
            if !e.record.revision.isInRange { map[e.record.timerID] = map[e.record.timerID] ?? e; continue }
            if let why = e.record.problem {
                throw DecodingError.dataCorruptedError(forKey: .entries, in: c, debugDescription: "record of timer \"\(TextRule.excerpt(e.record.timerID, bytes: 80))\": \(why)")
            }
            if let old = map[e.record.timerID], old.record.revision > e.record.revision { continue }
            map[e.record.timerID] = e
        }
        entries = map
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(clock, forKey: .clock)
        // Sorted: the same ledger is the same bytes.
        try c.encode(entries.values.sorted { $0.record.timerID.utf8.lexicographicallyPrecedes($1.record.timerID.utf8) }, forKey: .entries)
    }
}
