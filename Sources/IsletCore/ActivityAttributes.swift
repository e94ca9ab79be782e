/// What kind of activity: a cycled countdown or a count-up stopwatch.
public enum ActivityKind: Hashable, Sendable {
    /// `cycles == nil` means open-ended: cycles repeat until the user ends the session.
    case countdown(cycle: Duration, cycles: Int?)
    case stopwatch

    public var isStopwatch: Bool { if case .stopwatch = self { true } else { false } }
    /// A countdown's cycle length; nil for a stopwatch.
    public var cycleLength: Duration? { if case .countdown(let c, _) = self { c } else { nil } }
}

/// Everything fixed when an activity starts. Changing any of it means starting a new activity.
public struct ActivityAttributes: Hashable, Sendable {
    /// The activity's identity: at most one activity per timer id ever exists.
    public var timerID: String
    public var kind: ActivityKind
    /// Shown as given; nil means the renderer shows its localized default.
    public var title: String?
    /// How long CYCLE_END shows before the next cycle starts by itself.
    public var cycleEndInterval: Duration
    /// Content not updated for this long is marked stale (nil: never).
    public var staleAfter: Duration?
    /// The language the activity was started in (BCP-47 style, e.g. `en`, `zh-Hans`), not the
    /// system locale: the renderer runs elsewhere and must not guess.
    public var language: String

    public init(timerID: String? = nil, kind: ActivityKind, title: String? = nil,
                cycleEndInterval: Duration = .seconds(3), staleAfter: Duration? = nil,
                language: String = "en") {
        self.timerID = timerID ?? (kind.isStopwatch ? "stopwatch" : "meditation")
        self.kind = kind
        self.title = title
        self.cycleEndInterval = cycleEndInterval
        self.staleAfter = staleAfter
        self.language = language
    }

    public static func countdown(minutes: Int, cycles: Int? = 1, language: String = "en") -> ActivityAttributes {
        ActivityAttributes(kind: .countdown(cycle: .seconds(minutes * 60), cycles: cycles), language: language)
    }

    public static let maxTitleLength = 64
    public static let maxTimerIDLength = 64
    public static let timerIDRule = "1 to 64 characters of A-Z, a-z, 0-9, '.', '-' or '_'"

    /// 1–64 bytes of `[A-Za-z0-9._-]`: safe in a file, a log line and a shell.
    public static func isValidTimerID(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= maxTimerIDLength && s.utf8.allSatisfy { b in
            (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || (0x30...0x39).contains(b)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
        }
    }

    /// Checks the attributes a client may send; the rejection names the field and the rule.
    public func validated() throws(Rejection) -> ActivityAttributes {
        if let v = violation() { throw Rejection(.invalidAttributes, v.message) }
        return self
    }

    /// The one definition of valid attributes (requests through `validated()`, the loader
    /// through `Activity.violation()`): the first rule broken, with its field's key, or nil.
    public func violation() -> InvariantViolation? {
        func bad(_ f: String, _ m: String) -> InvariantViolation { InvariantViolation(field: f, m) }
        guard Self.isValidTimerID(timerID) else { return bad("timer", "timer id must be \(Self.timerIDRule) (got \"\(timerID.prefix(80))\")") }
        if case .countdown(let cycle, let cycles) = kind {
            guard cycle >= .seconds(1), cycle <= .seconds(24 * 3600) else {
                return bad("cycle_seconds", "cycle length must be 1 s to 24 h (got \(cycle.jsonSeconds) s)")
            }
            if let cycles, !(1...999).contains(cycles) {
                return bad("cycles", "cycles must be 1 to 999, or open-ended (got \(cycles))")
            }
        }
        guard cycleEndInterval >= .zero, cycleEndInterval <= .seconds(600) else {
            return bad("cycle_end_seconds", "cycle end interval must be 0 to 600 s (got \(cycleEndInterval.jsonSeconds) s)")
        }
        if let s = staleAfter, s < .seconds(1) { return bad("stale_after_seconds", "stale-after must be at least 1 s") }
        guard (2...16).contains(language.count),
              language.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0 == "-" || $0 == "_" }) else {
            return bad("language", "language must be a code such as en, pt, zh-Hans (got \"\(language)\")")
        }
        if let title {
            if title.count > Self.maxTitleLength { return bad("title", "title is longer than \(Self.maxTitleLength) characters (got \(title.count))") }
            if let c = title.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                let hex = String(c.value, radix: 16, uppercase: true)
                return bad("title", "title must not contain control characters (got U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))")
            }
        }
        return nil
    }
}

extension ActivityAttributes: Codable {
    private enum Keys: String, CodingKey {
        case timer, kind, cycleSeconds = "cycle_seconds", cycles, title
        case cycleEndSeconds = "cycle_end_seconds", staleAfterSeconds = "stale_after_seconds", language
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(timerID, forKey: .timer)
        switch kind {
        case .countdown(let cycle, let cycles):
            try c.encode("countdown", forKey: .kind)
            try c.encode(cycle.jsonSeconds, forKey: .cycleSeconds)
            try c.encode(cycles ?? 0, forKey: .cycles)
        case .stopwatch:
            try c.encode("stopwatch", forKey: .kind)
        }
        try c.encodeIfPresent(title, forKey: .title)
        try c.encode(cycleEndInterval.jsonSeconds, forKey: .cycleEndSeconds)
        try c.encodeIfPresent(staleAfter?.jsonSeconds, forKey: .staleAfterSeconds)
        try c.encode(language, forKey: .language)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let kindName = try c.decode(String.self, forKey: .kind)
        switch kindName {
        case "countdown":
            let secs = try c.decode(Double.self, forKey: .cycleSeconds)
            guard let cycle = Duration.jsonSeconds(secs) else {
                throw DecodingError.dataCorruptedError(forKey: .cycleSeconds, in: c, debugDescription: "not a number of seconds")
            }
            let n = try c.decodeIfPresent(Int.self, forKey: .cycles) ?? 0
            kind = .countdown(cycle: cycle, cycles: n == 0 ? nil : n)
        case "stopwatch":
            kind = .stopwatch
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "kind must be countdown or stopwatch")
        }
        timerID = try c.decodeIfPresent(String.self, forKey: .timer) ?? (kind.isStopwatch ? "stopwatch" : "meditation")
        title = try c.decodeIfPresent(String.self, forKey: .title)
        func seconds(_ k: Keys) throws -> Duration? {
            guard let s = try c.decodeIfPresent(Double.self, forKey: k) else { return nil }
            guard let d = Duration.jsonSeconds(s) else {
                throw DecodingError.dataCorruptedError(forKey: k, in: c, debugDescription: "not a number of seconds")
            }
            return d
        }
        cycleEndInterval = try seconds(.cycleEndSeconds) ?? .seconds(3)
        staleAfter = try seconds(.staleAfterSeconds)
        language = try c.decodeIfPresent(String.self, forKey: .language) ?? "en"
    }
}
