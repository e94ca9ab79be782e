/// What the activity shows: one enum the renderer switches on. Its cases are the lifecycle,
/// so fields cannot disagree with each other (the six-field design's failure).
public enum Display: Hashable, Sendable {
    /// No activity.
    case idle
    /// Counting. Countdown: `reference` is the end instant of the current cycle.
    /// Stopwatch: `reference` is start − accumulated, so elapsed = now − reference.
    case running(reference: Instant)
    /// Paused: the frozen remaining (countdown) or accumulated (stopwatch) time is the only truth.
    case paused(frozen: Duration)
    /// The current cycle's time ran out; the next cycle starts by itself at `nextCycleAt`.
    case cycleEnd(nextCycleAt: Instant)
    /// Terminal: the session is over and waits for its dismissal.
    case complete
    /// An `until` activity under way: its source owns the end (`ContentState.pushed`), so the
    /// time shown counts to that instant and nothing here moves by itself.
    case tracking
}

/// The lifecycle state names, as the transition table and the JSON `phase` spell them.
public enum Phase: String, Hashable, Sendable, CaseIterable, Codable {
    case idle, running, paused
    case cycleEnd = "cycle_end"
    case complete
}

/// The content state: plain data that crosses the process boundary on every transition.
public struct ContentState: Hashable, Sendable {
    /// Bumped whenever the JSON form changes incompatibly. Content that schema 1 can hold is
    /// still written as schema 1, so clients and displays of earlier versions keep reading it.
    public static let schemaVersion = 2
    public static let readableSchemas: ClosedRange<Int> = 1...2

    public var display: Display
    /// 1-based. In CYCLE_END this is the cycle that just ended.
    public var cycle: Int
    /// nil for open-ended countdowns and for stopwatches.
    public var totalCycles: Int?
    /// The shown time may be wrong (no update within the stale-after interval, or the host's
    /// clock is behind the last save).
    public var isStale: Bool
    /// What the source of an `until` activity last pushed; nil for the other kinds.
    public var pushed: PushedContent?

    public init(display: Display, cycle: Int = 1, totalCycles: Int? = nil, isStale: Bool = false, pushed: PushedContent? = nil) {
        self.display = display
        self.cycle = cycle
        self.totalCycles = totalCycles
        self.isStale = isStale
        self.pushed = pushed
    }

    /// The schema this content is written in: the lowest that holds it.
    public var schema: Int { pushed == nil && display != .tracking ? 1 : 2 }

    public static let idle = ContentState(display: .idle)

    public var phase: Phase {
        switch display {
        case .idle: .idle
        case .running, .tracking: .running
        case .paused: .paused
        case .cycleEnd: .cycleEnd
        case .complete: .complete
        }
    }
}

/// The tagged JSON form (documented in README.md), not Swift's synthesized `{"running":{"_0":…}}`:
/// `{"schema":1,"phase":"running","reference":"2026-11-29T22:00:00.000Z","cycle":1,"cycles":3,"stale":false}`.
extension ContentState: Codable {
    private enum Keys: String, CodingKey {
        case schema, phase, reference, frozenSeconds = "frozen_seconds", nextCycleAt = "next_cycle_at"
        case cycle, cycles, stale, pushed
        case endsAt = "ends_at", progress, text
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(phase, forKey: .phase)
        switch display {
        case .idle, .complete, .tracking: break
        case .running(let reference): try c.encode(ISO8601.format(reference), forKey: .reference)
        case .paused(let frozen): try c.encode(frozen.jsonSeconds, forKey: .frozenSeconds)
        case .cycleEnd(let next): try c.encode(ISO8601.format(next), forKey: .nextCycleAt)
        }
        try c.encode(cycle, forKey: .cycle)
        try c.encode(totalCycles, forKey: .cycles)   // explicit null: open-ended
        try c.encode(isStale, forKey: .stale)
        if let p = pushed {
            var n = c.nestedContainer(keyedBy: Keys.self, forKey: .pushed)
            try p.encode(into: &n, endsAt: .endsAt, progress: .progress, text: .text)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let schema = try c.decode(Int.self, forKey: .schema)
        guard Self.readableSchemas.contains(schema) else {
            throw DecodingError.dataCorruptedError(forKey: .schema, in: c,
                debugDescription: "content state schema \(schema) is not supported (this build reads \(Self.readableSchemas.lowerBound) to \(Self.readableSchemas.upperBound))")
        }
        func instant(_ k: Keys) throws -> Instant {
            let s = try c.decode(String.self, forKey: k)
            guard let t = ISO8601.parse(s) else {
                throw DecodingError.dataCorruptedError(forKey: k, in: c, debugDescription: "\"\(s)\" is not an RFC 3339 instant")
            }
            return t
        }
        switch try c.decode(Phase.self, forKey: .phase) {
        case .idle: display = .idle
        case .complete: display = .complete
        case .running:
            // An `until` activity's content has no reference: its end is the source's.
            display = schema >= 2 && !c.contains(.reference) ? .tracking : .running(reference: try instant(.reference))
        case .cycleEnd: display = .cycleEnd(nextCycleAt: try instant(.nextCycleAt))
        case .paused:
            // -0 is a sign no pause writes: refused with the negatives, not read as 0.
            let secs = try c.decode(Double.self, forKey: .frozenSeconds)
            guard secs.sign == .plus, let d = Duration.jsonSeconds(secs), d >= .zero else {
                throw DecodingError.dataCorruptedError(forKey: .frozenSeconds, in: c, debugDescription: "frozen time must be a non-negative number of seconds")
            }
            display = .paused(frozen: d)
        }
        cycle = try c.decodeIfPresent(Int.self, forKey: .cycle) ?? 1
        totalCycles = try c.decodeIfPresent(Int.self, forKey: .cycles)
        isStale = try c.decodeIfPresent(Bool.self, forKey: .stale) ?? false
        if schema >= 2, c.contains(.pushed) {
            let n = try c.nestedContainer(keyedBy: Keys.self, forKey: .pushed)
            pushed = try PushedContent.decode(from: n, endsAt: .endsAt, progress: .progress, text: .text)
        } else {
            pushed = nil
        }
    }
}
