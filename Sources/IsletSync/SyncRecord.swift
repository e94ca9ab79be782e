import IsletCore

/// One timer's state in a group, as it crosses the broker: the revision of the change that made
/// it, the activity as that change left it (nil: the activity ended and was dismissed, a
/// tombstone), and, after an expand, the wall instant the expanded view lasts until.
/// Time's own transitions (cycle end, completion, dismissal) are not changes: every device
/// derives them from the same activity and wall instants.
public struct SyncRecord: Hashable, Sendable {
    public var timerID: String
    public var revision: Revision
    public var activity: Activity?
    public var expandedUntil: Instant?
    /// The revision of the record the change was made on (what its device showed then; nil:
    /// none). A record that replaces one of ours but was made on an older one is a conflict:
    /// its device changed the timer without having seen our change (a partition).
    public var basis: Revision?

    public init(timerID: String, revision: Revision, activity: Activity?, expandedUntil: Instant? = nil, basis: Revision? = nil) {
        self.timerID = timerID
        self.revision = revision
        self.activity = activity
        self.expandedUntil = expandedUntil
        self.basis = basis
    }

    /// Whether this record, replacing `replaced`, was made without its device having seen it.
    public func overrides(unseen replaced: SyncRecord) -> Bool {
        replaced.revision < revision && basis != replaced.revision
    }

    /// How long after its change a record's expanded view may last at most.
    public static let maximumExpandMilliseconds: Int64 = 3_600_000

    /// Why a received record cannot be taken (nil: it can): a record is input from the network,
    /// checked by the rules every activity the book makes meets.
    public var problem: String? {
        guard ActivityAttributes.isValidTimerID(timerID) else { return "timer id \"\(TextRule.excerpt(timerID, bytes: 80))\" is not \(ActivityAttributes.timerIDRule)" }
        guard !revision.device.isEmpty, revision.device.utf8.count <= 64 else { return "the revision's device id must be 1 to 64 bytes" }
        guard revision.wallMilliseconds >= 0 else { return "the revision's wall time \(revision.wallMilliseconds) is before 1970" }
        guard revision.isInRange else { return "the revision's wall time \(revision.wallMilliseconds) is after the year 9999" }
        if let until = expandedUntil {
            // An expand lasts seconds; one that would hold the panel for ever is no change a display makes.
            let (limit, overflow) = revision.wallMilliseconds.addingReportingOverflow(Self.maximumExpandMilliseconds)
            guard overflow || until.milliseconds <= limit else { return "expanded_until is more than an hour after its change" }
        }
        if let a = activity {
            guard a.timerID == timerID else { return "the activity is for timer \"\(TextRule.excerpt(a.timerID, bytes: 80))\", not \"\(timerID)\"" }
            if let v = a.violation() { return "\(v)" }
        }
        return nil
    }
}

extension SyncRecord: Codable {
    enum CodingKeys: String, CodingKey { case timerID = "timer", revision, activity, expandedUntil = "expanded_until", basis }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timerID, forKey: .timerID)
        try c.encode(revision, forKey: .revision)
        try c.encodeIfPresent(activity, forKey: .activity)
        try c.encodeIfPresent(expandedUntil.map(ISO8601.format), forKey: .expandedUntil)
        try c.encodeIfPresent(basis, forKey: .basis)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timerID = try c.decode(String.self, forKey: .timerID)
        revision = try c.decode(Revision.self, forKey: .revision)
        activity = try c.decodeIfPresent(Activity.self, forKey: .activity)
        if let s = try c.decodeIfPresent(String.self, forKey: .expandedUntil) {
            guard let t = ISO8601.parse(s) else {
                throw DecodingError.dataCorruptedError(forKey: .expandedUntil, in: c, debugDescription: "\"\(s)\" is not an RFC 3339 instant")
            }
            expandedUntil = t
        } else {
            expandedUntil = nil
        }
        basis = try c.decodeIfPresent(Revision.self, forKey: .basis)
    }
}
