import IsletCore

/// A chime's rhythm: alternating on and off durations in milliseconds, starting with on
/// ("200,100,200": on 200 ms, off 100 ms, on 200 ms). The line is off after the last entry.
public struct ChimePattern: Hashable, Sendable, CustomStringConvertible {
    public private(set) var durationsMilliseconds: [UInt32]

    public struct ParseError: Error, Hashable, Sendable { public var reason: String }

    public static let defaultCycleEnd = ChimePattern(unchecked: [200])
    public static let defaultCompletion = ChimePattern(unchecked: [200, 100, 200, 100, 400])
    /// Limits that keep a typo from buzzing for minutes.
    public static let maximumEntries = 32
    public static let maximumTotalMilliseconds: UInt32 = 10_000

    private init(unchecked: [UInt32]) { durationsMilliseconds = unchecked }

    public init(durationsMilliseconds: [UInt32]) throws(ParseError) {
        guard !durationsMilliseconds.isEmpty else { throw ParseError(reason: "a pattern needs at least one duration") }
        guard durationsMilliseconds.count <= Self.maximumEntries else {
            throw ParseError(reason: "at most \(Self.maximumEntries) durations")
        }
        guard durationsMilliseconds.allSatisfy({ (1...Self.maximumTotalMilliseconds).contains($0) }) else {
            throw ParseError(reason: "each duration is 1…\(Self.maximumTotalMilliseconds) ms")
        }
        guard durationsMilliseconds.reduce(0, +) <= Self.maximumTotalMilliseconds else {
            throw ParseError(reason: "the whole pattern lasts at most \(Self.maximumTotalMilliseconds) ms")
        }
        self.durationsMilliseconds = durationsMilliseconds
    }

    /// Reads "200,100,200" (spaces allowed around the commas).
    public static func parse(_ text: String) throws(ParseError) -> ChimePattern {
        var values: [UInt32] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            let t = piece.filter { $0 != " " && $0 != "\t" }
            guard let v = UInt32(t) else { throw ParseError(reason: "\"\(t)\" is not a whole number of milliseconds") }
            values.append(v)
        }
        return try ChimePattern(durationsMilliseconds: values)
    }

    public var description: String { durationsMilliseconds.map(String.init).joined(separator: ",") }

    /// Where the level changes, from the start: (offset, active). Ends inactive.
    public var steps: [(offsetMilliseconds: UInt32, active: Bool)] {
        var out: [(UInt32, Bool)] = []
        var t: UInt32 = 0
        for (i, d) in durationsMilliseconds.enumerated() {
            out.append((t, i % 2 == 0))
            t += d
        }
        if durationsMilliseconds.count % 2 == 1 { out.append((t, false)) }
        return out.map { (offsetMilliseconds: $0.0, active: $0.1) }
    }
}

/// Why the chime should sound (or stop), decided from a transition's effects.
public enum ChimeCue: Hashable, Sendable {
    case cycleEnd
    case completion
    /// A pushed update asked for attention (`alert: true`): the cycle end's single strike.
    case alert
    /// Stop any chime in progress (a pause, a reset, an end).
    case silence

    /// The cue for one transition's `effects`, given the phase the activity is in afterwards.
    /// Completion wins over the cycle end it comes with; nothing sounds when the transition
    /// leaves the timer paused (a pause that arrived after a cycle ended); a pause, reset or
    /// end silences a chime in progress.
    public static func decide(effects: [Effect], phase: Phase) -> ChimeCue? {
        var cycleEnded = false, completed = false, quiet = false, alerted = false
        for e in effects {
            switch e {
            case .cycleEnded: cycleEnded = true
            case .completed: completed = true
            case .alerted: alerted = true
            case .paused, .ended, .dismissed, .replaced: quiet = true
            case .started, .resumed, .cycleStarted, .becameStale, .becameFresh, .expanded, .updated: break
            }
        }
        if phase == .paused { return cycleEnded || completed || quiet ? .silence : nil }
        if completed { return .completion }
        if cycleEnded && !quiet { return .cycleEnd }
        if alerted && !quiet { return .alert }
        return quiet ? .silence : nil
    }
}

/// Plays a pattern in time: pure, the host drives it with `nextDeadline` and `advance(to:)`
/// (monotonic ns, the buttons' clock) and sets the output to the levels it returns.
public struct ChimePlayer: Hashable, Sendable {
    private var pending: [(at: UInt64, active: Bool)] = []
    /// The level last returned (what the output is driven to).
    public private(set) var active = false

    public init() {}

    public static func == (a: ChimePlayer, b: ChimePlayer) -> Bool {
        a.active == b.active && a.pending.map(\.at) == b.pending.map(\.at) && a.pending.map(\.active) == b.pending.map(\.active)
    }
    public func hash(into h: inout Hasher) {
        h.combine(active)
        for p in pending { h.combine(p.at); h.combine(p.active) }
    }

    public var isPlaying: Bool { !pending.isEmpty || active }
    public var nextDeadline: UInt64? { pending.first?.at }

    /// Starts `pattern` at `now` (replacing one in progress); returns the level to set now.
    public mutating func start(_ pattern: ChimePattern, at now: UInt64) -> Bool? {
        pending = pattern.steps.map { (now + UInt64($0.offsetMilliseconds) * 1_000_000, $0.active) }
        return advance(to: now)
    }

    /// Stops at once; returns false if the output must be switched off.
    public mutating func stop() -> Bool? {
        pending = []
        guard active else { return nil }
        active = false
        return false
    }

    /// Applies what is due by `now`; returns the new level when it changed.
    public mutating func advance(to now: UInt64) -> Bool? {
        let before = active
        while let first = pending.first, first.at <= now {
            active = first.active
            pending.removeFirst()
        }
        return active != before ? active : nil
    }
}
