/// What kind of activity: a cycled countdown, a count-up stopwatch, or a countdown to an
/// instant someone else owns.
public enum ActivityKind: Hashable, Sendable {
    /// `cycles == nil` means open-ended: cycles repeat until the user ends the session.
    case countdown(cycle: Duration, cycles: Int?)
    case stopwatch
    /// Pushed from the home (the washing machine's end, the oven, the next train): the content
    /// it started with; its source changes it with `update` and ends it with `end`.
    case until(PushedContent)

    public var isStopwatch: Bool { if case .stopwatch = self { true } else { false } }
    public var isUntil: Bool { if case .until = self { true } else { false } }
    /// The wire name (`kind` of a request and of the state file).
    public var name: String {
        switch self {
        case .countdown: "countdown"
        case .stopwatch: "stopwatch"
        case .until: "until"
        }
    }
    /// How relevant an activity of this kind is unless its start says otherwise: a session a
    /// person started by hand outranks what the home pushes (`[session] relevance`).
    public var defaultRelevance: Double { isUntil ? 0 : ActivityAttributes.handStartedRelevance }
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
    /// The icon it shows; nil: the kind's own (meditation, stopwatch, a bell for `until`).
    public var icon: ActivityIcon?
    /// Which activity the pill shows first when several compete: the most relevant, then the
    /// most recently started (ActivityKit's relevance score). 0 to 100.
    public var relevance: Double

    public init(timerID: String? = nil, kind: ActivityKind, title: String? = nil,
                cycleEndInterval: Duration = .seconds(3), staleAfter: Duration? = nil,
                language: String = "en", icon: ActivityIcon? = nil, relevance: Double? = nil) {
        self.timerID = timerID ?? Self.defaultTimerID(kind)
        self.kind = kind
        self.title = title
        self.cycleEndInterval = cycleEndInterval
        self.staleAfter = staleAfter
        self.language = language
        self.icon = icon
        self.relevance = relevance ?? kind.defaultRelevance
    }

    static func defaultTimerID(_ kind: ActivityKind) -> String {
        switch kind {
        case .countdown: "meditation"
        case .stopwatch: "stopwatch"
        case .until: "until"
        }
    }

    /// The relevance of a countdown or stopwatch started without one.
    public static let handStartedRelevance: Double = 100
    public static let relevanceRange: ClosedRange<Double> = 0...100

    /// Whether a state file of schema 1 could hold these attributes (what earlier versions read).
    public var fitsSchema1: Bool { !kind.isUntil && icon == nil && relevance == kind.defaultRelevance }

    public static func countdown(minutes: Int, cycles: Int? = 1, language: String = "en") -> ActivityAttributes {
        ActivityAttributes(kind: .countdown(cycle: .seconds(minutes * 60), cycles: cycles), language: language)
    }

    public static let maxTitleLength = 64
    /// A title's bound in UTF-8 (`TextRule`): 256 bytes.
    public static let maxTitleBytes = TextRule.maximumBytes(characters: maxTitleLength)
    /// A language code's bound: 16 characters, 64 bytes.
    public static let maxLanguageLength = 16
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
        guard Self.isValidTimerID(timerID) else { return bad("timer", "timer id must be \(Self.timerIDRule) (got \"\(TextRule.excerpt(timerID, bytes: 80))\")") }
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
        if case .until(let initial) = kind, let v = initial.violation() { return v }
        if let s = staleAfter, s < .seconds(1) { return bad("stale_after_seconds", "stale-after must be at least 1 s") }
        guard relevance.isFinite, Self.relevanceRange.contains(relevance) else {
            return bad("relevance", "relevance must be a number from 0 to 100 (got \(relevance))")
        }
        if let v = icon?.violation() { return v }
        // Bytes before characters, as for every text (`TextRule`): letters may carry marks.
        guard language.utf8.count <= TextRule.maximumBytes(characters: Self.maxLanguageLength),
              (2...Self.maxLanguageLength).contains(language.count),
              language.allSatisfy({ $0.unicodeScalars.count <= TextRule.maximumScalarsPerCharacter }),
              language.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0 == "-" || $0 == "_" }) else {
            return bad("language", "language must be a code such as en, pt, zh-Hans: 2 to \(Self.maxLanguageLength) letters, - or _ (got \"\(TextRule.excerpt(language, bytes: 64))\", \(language.utf8.count) bytes)")
        }
        if let title, let v = TextRule.violation(title, field: "title", maximum: Self.maxTitleLength) { return v }
        return nil
    }
}

extension ActivityAttributes: Codable {
    private enum Keys: String, CodingKey {
        case timer, kind, cycleSeconds = "cycle_seconds", cycles, title
        case cycleEndSeconds = "cycle_end_seconds", staleAfterSeconds = "stale_after_seconds", language
        case endsAt = "ends_at", progress, text, icon, iconData = "icon_data", relevance
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
        case .until(let p):
            try c.encode("until", forKey: .kind)
            try p.encode(into: &c, endsAt: .endsAt, progress: .progress, text: .text)
        }
        switch icon {
        case nil: break
        case .named(let n)?: try c.encode(n, forKey: .icon)
        case .custom(let b)?: try c.encode(b, forKey: .iconData)
        }
        // Schema 1 had no relevance: written only when it is not the kind's own.
        if relevance != kind.defaultRelevance { try c.encode(relevance, forKey: .relevance) }
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
        case "until":
            kind = .until(try PushedContent.decode(from: c, endsAt: .endsAt, progress: .progress, text: .text))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "kind must be countdown, stopwatch or until")
        }
        timerID = try c.decodeIfPresent(String.self, forKey: .timer) ?? Self.defaultTimerID(kind)
        let name = try c.decodeIfPresent(String.self, forKey: .icon)
        let data = try c.decodeIfPresent(String.self, forKey: .iconData)
        switch (name, data) {
        case (nil, nil): icon = nil
        case (let n?, nil): icon = .named(n)
        case (nil, let d?): icon = .custom(base64: d)
        case (.some, .some):
            throw DecodingError.dataCorruptedError(forKey: .iconData, in: c, debugDescription: "an activity has icon or icon_data, not both")
        }
        relevance = try c.decodeIfPresent(Double.self, forKey: .relevance) ?? kind.defaultRelevance
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
