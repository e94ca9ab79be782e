/// How an ended activity leaves the pill: a product decision, made explicitly at each end.
public enum DismissalPolicy: Hashable, Sendable {
    /// Gone at once: a user reset.
    case immediate
    /// The system default: linger, capped at `Limits.maximumLinger` (4 h).
    case `default`
    /// Gone at the instant, or at the 4 h cap, whichever comes first. Completion uses now + 3 s.
    case after(Instant)

    /// The instant an activity ended at `endedAt` is dismissed.
    public func dismissalInstant(endedAt: Instant) -> Instant {
        switch self {
        case .immediate: endedAt
        case .default: endedAt + Limits.maximumLinger
        case .after(let t): min(max(t, endedAt), endedAt + Limits.maximumLinger)
        }
    }
}

/// The platform limits Islet mirrors from Live Activities.
public enum Limits {
    /// Ended activities linger at most this long under any policy.
    public static let maximumLinger: Duration = .seconds(4 * 3600)
    /// An activity active this long ends itself with the default policy.
    public static let maximumActive: Duration = .seconds(8 * 3600)
    /// How long a naturally completed session stays: long enough to see the checkmark.
    public static let completionLinger: Duration = .seconds(3)
    /// The encoded activity must stay small (the platform caps it at 4 KB).
    public static let maximumEncodedBytes = 4096
}

/// One activity: its fixed attributes, its content state, and the bookkeeping of time.
public struct Activity: Hashable, Sendable {
    /// The most JSON one legal activity takes: in the state file, in a sync record (7,069
    /// bytes measured, under the wire's 16 KiB), in an answer. Every field at its bound in its
    /// heaviest bytes (RecordSizeTests); the texts' byte bounds (`TextRule`) and the icon's
    /// length make it finite.
    public static let maximumRecordBytes = 7 * 1024

    public var attributes: ActivityAttributes
    public var content: ContentState
    public var startedAt: Instant
    /// The last transition; staleness counts from here.
    public var updatedAt: Instant
    /// Set once the activity has ended: when, and when it leaves the pill.
    public var ending: Ending?

    public struct Ending: Hashable, Sendable {
        public var endedAt: Instant
        public var policy: DismissalPolicy
        public var dismissAt: Instant
        public init(endedAt: Instant, policy: DismissalPolicy) {
            self.endedAt = endedAt
            self.policy = policy
            self.dismissAt = policy.dismissalInstant(endedAt: endedAt)
        }
    }

    public init(attributes: ActivityAttributes, content: ContentState, startedAt: Instant,
                updatedAt: Instant? = nil, ending: Ending? = nil) {
        self.attributes = attributes
        self.content = content
        self.startedAt = startedAt
        self.updatedAt = updatedAt ?? startedAt
        self.ending = ending
    }

    public var timerID: String { attributes.timerID }
    public var phase: Phase { content.phase }

    /// When the content goes stale, if it can.
    public var staleAt: Instant? {
        guard !content.isStale, ending == nil, let s = attributes.staleAfter else { return nil }
        return updatedAt + s
    }

    /// Whether a state file of schema 1 could hold this activity (what earlier versions read).
    public var fitsSchema1: Bool { attributes.fitsSchema1 && content.schema == 1 }

    /// When the 8 h activity limit ends it, if it is still active.
    public var lifetimeEndsAt: Instant? { ending == nil ? startedAt + Limits.maximumActive : nil }
}

extension Activity: Codable {
    private enum Keys: String, CodingKey {
        case attributes, content, startedAt = "started_at", updatedAt = "updated_at"
        case endedAt = "ended_at", dismissal, dismissAt = "dismiss_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(attributes, forKey: .attributes)
        try c.encode(content, forKey: .content)
        try c.encode(ISO8601.format(startedAt), forKey: .startedAt)
        try c.encode(ISO8601.format(updatedAt), forKey: .updatedAt)
        if let e = ending {
            try c.encode(ISO8601.format(e.endedAt), forKey: .endedAt)
            switch e.policy {
            case .immediate: try c.encode("immediate", forKey: .dismissal)
            case .default: try c.encode("default", forKey: .dismissal)
            case .after: try c.encode("after", forKey: .dismissal)
            }
            try c.encode(ISO8601.format(e.dismissAt), forKey: .dismissAt)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        func instant(_ k: Keys) throws -> Instant {
            let s = try c.decode(String.self, forKey: k)
            guard let t = ISO8601.parse(s) else {
                throw DecodingError.dataCorruptedError(forKey: k, in: c, debugDescription: "\"\(s)\" is not an RFC 3339 instant")
            }
            return t
        }
        attributes = try c.decode(ActivityAttributes.self, forKey: .attributes)
        content = try c.decode(ContentState.self, forKey: .content)
        startedAt = try instant(.startedAt)
        updatedAt = try instant(.updatedAt)
        if c.contains(.endedAt) {
            let endedAt = try instant(.endedAt)
            let dismissAt = try instant(.dismissAt)
            let policy: DismissalPolicy
            switch try c.decode(String.self, forKey: .dismissal) {
            case "immediate": policy = .immediate
            case "default": policy = .default
            case "after": policy = .after(dismissAt)
            case let other:
                throw DecodingError.dataCorruptedError(forKey: .dismissal, in: c, debugDescription: "unknown dismissal \"\(other)\"")
            }
            ending = Ending(endedAt: endedAt, policy: policy)
        } else {
            ending = nil
        }
    }
}

/// A refused intent: nothing changed, and the reason reads well to a person.
public struct Rejection: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable, CaseIterable {
        case noActivity = "no_activity"
        case alreadyRunning = "already_running"
        case alreadyPaused = "already_paused"
        case notPaused = "not_paused"
        case alreadyComplete = "already_complete"
        case notDue = "not_due"
        case notApplicable = "not_applicable"
        case kindMismatch = "kind_mismatch"
        case invalidAttributes = "invalid_attributes"
        case startInProgress = "start_in_progress"
        case tooManyActivities = "too_many_activities"
        case cancelled = "cancelled"
        case storeFailed = "store_failed"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
