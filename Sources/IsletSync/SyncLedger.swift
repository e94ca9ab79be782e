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

    /// A tombstone is kept this long after it was taken: longer than any activity can live
    /// (8 h active, then at most 4 h ended) plus the retained messages' expiry, so a record it
    /// shadows that turns up later is either older than it or of an activity long over.
    public static let tombstoneLifetime: Duration = .seconds(24 * 3600)
    /// Retained records expire on the broker after this long (MQTT 5 message expiry): an
    /// activity's whole life, plus an hour.
    public static let retainedLifetime: Duration = .seconds(13 * 3600)
    /// Records kept at most (live ones and tombstones); past it the oldest tombstones go first.
    public static let maximumEntries = 256

    public init(device: String) {
        clock = HybridClock(device: device)
        entries = [:]
    }

    public var device: String { clock.device }

    /// How a received record was taken.
    public enum Merge: Hashable, Sendable {
        /// Newer than what was known: it is the timer's state now.
        case taken(replaced: SyncRecord?)
        /// The same revision again (a duplicate, or this device's own record coming back).
        case duplicate
        /// Older than the record known: the sender (or the broker's retained copy) is behind.
        case older(current: SyncRecord)
        /// Not a record any device makes; nothing changed.
        case refused(String)
    }

    /// Takes a record from another device (or the broker's retained copy).
    public mutating func merge(_ record: SyncRecord, now: Instant) -> Merge {
        if let why = record.problem { return .refused(why) }
        clock.observe(record.revision)
        guard let current = entries[record.timerID] else {
            entries[record.timerID] = Entry(record: record, takenAt: now)
            compact(now: now)
            return .taken(replaced: nil)
        }
        if record.revision == current.record.revision { return .duplicate }
        if record.revision < current.record.revision { return .older(current: current.record) }
        entries[record.timerID] = Entry(record: record, takenAt: now)
        return .taken(replaced: current.record)
    }

    /// A change made on this device: its record, with a revision later than every one seen.
    public mutating func record(_ timerID: String, activity: Activity?, expandedUntil: Instant? = nil, now: Instant) -> SyncRecord {
        let r = SyncRecord(timerID: timerID, revision: clock.tick(wallMilliseconds: now.milliseconds),
                           activity: activity, expandedUntil: expandedUntil, basis: entries[timerID]?.record.revision)
        entries[timerID] = Entry(record: r, takenAt: now)
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
    public func isTombstone(_ e: Entry, at now: Instant) -> Bool {
        TimerMachine.advance(e.record.activity, to: now).activity == nil
    }

    /// Forgets tombstones past their lifetime, then the oldest ones past the bound. A live
    /// record is never forgotten (the book bounds those at 16).
    public mutating func compact(now: Instant) {
        for (id, e) in entries where now >= e.takenAt + Self.tombstoneLifetime && isTombstone(e, at: now) {
            entries[id] = nil
        }
        guard entries.count > Self.maximumEntries else { return }
        let tombstones = entries.filter { isTombstone($0.value, at: now) }
            .sorted { ($0.value.takenAt, $0.value.record.revision) < ($1.value.takenAt, $1.value.record.revision) }
        for (id, _) in tombstones.prefix(entries.count - Self.maximumEntries) { entries[id] = nil }
    }
}

extension SyncLedger: Codable {
    enum CodingKeys: String, CodingKey { case clock, entries }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clock = try c.decode(HybridClock.self, forKey: .clock)
        var map: [String: Entry] = [:]
        for e in try c.decode([Entry].self, forKey: .entries) {
            if let why = e.record.problem {
                throw DecodingError.dataCorruptedError(forKey: .entries, in: c, debugDescription: "record of timer \"\(e.record.timerID.prefix(80))\": \(why)")
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
