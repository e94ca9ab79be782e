/// A state no sequence of requests could have produced: the field at fault and the rule it
/// breaks. The loader refuses a state file with one (the file is moved aside, this is logged).
public struct InvariantViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field's path as the state file spells it, e.g. `activities[2].attributes.cycle_seconds`.
    public var field: String
    public var message: String
    public init(field: String, _ message: String) { self.field = field; self.message = message }
    public var description: String { "\(field): \(message)" }

    func inside(_ prefix: String) -> InvariantViolation { InvariantViolation(field: prefix + "." + field, message) }
}

extension Instant {
    /// The instants an activity may hold: 1970-01-01 up to (not including) 2200-01-01. Every
    /// deadline of an activity lies at most days after its instants, so with this bound each one
    /// still maps to CLOCK_MONOTONIC nanoseconds (whose Int64 ends in April 2262).
    public static let validRange = Instant.epoch..<Instant(milliseconds: 7_258_118_400_000)
    public static let validRangeRule = "from 1970-01-01 to 2199-12-31"
}

// The one definition of what an activity may be. Requests meet it by construction (the
// attributes through `validated()`, the rest through the transition table), and `beginStart`
// checks every new activity with it; the loader checks every restored one with it.
extension Activity {
    /// The first rule this activity breaks, or nil. Field names are the state file's keys.
    public func violation() -> InvariantViolation? {
        if let v = attributes.violation() { return v.inside("attributes") }
        func instant(_ t: Instant, _ field: String) -> InvariantViolation? {
            Instant.validRange.contains(t) ? nil
                : InvariantViolation(field: field, "\(t) is outside the instants a timer can hold (\(Instant.validRangeRule))")
        }
        if let v = instant(startedAt, "started_at") ?? instant(updatedAt, "updated_at") { return v }
        if let e = ending, let v = instant(e.endedAt, "ended_at") ?? instant(e.dismissAt, "dismiss_at") { return v }
        // The timeline never runs backwards (HostClock): nothing of an activity precedes its start,
        // so the 8 h limit bounds how much a restore has to catch up.
        if updatedAt < startedAt { return InvariantViolation(field: "updated_at", "\(updatedAt) is before started_at \(startedAt)") }
        if let e = ending, e.endedAt < startedAt { return InvariantViolation(field: "ended_at", "\(e.endedAt) is before started_at \(startedAt)") }
        switch content.display {
        case .running(let t), .cycleEnd(let t):
            if t < startedAt {
                return InvariantViolation(field: content.phase == .running ? "content.reference" : "content.next_cycle_at", "\(t) is before started_at \(startedAt)")
            }
        case .paused, .complete, .idle, .tracking: break
        }
        if let v = content.violation(for: attributes.kind) { return v.inside("content") }
        if case .until(let initial) = attributes.kind {
            // A source's end is at most 24 h after the change that set it: the start's after the
            // start, the content's after its last update. A forged record or a hand-edited file
            // cannot hold an end in 2199 that no request could have set.
            if let v = TimerMachine.horizonViolation(initial, now: startedAt) { return v.inside("attributes") }
            if let p = content.pushed, let v = TimerMachine.horizonViolation(p, now: updatedAt) { return v.inside("content.pushed") }
        }
        switch (content.display, ending) {
        case (.complete, nil): return InvariantViolation(field: "ended_at", "a complete activity has ended: ended_at is missing")
        case (.complete, _), (_, nil): return nil
        case (_, .some): return InvariantViolation(field: "ended_at", "only a complete activity has ended (phase is \(content.phase.rawValue))")
        }
    }
}

extension ContentState {
    /// The first rule this content breaks for an activity of `kind`, or nil.
    public func violation(for kind: ActivityKind) -> InvariantViolation? {
        func bad(_ f: String, _ m: String) -> InvariantViolation { InvariantViolation(field: f, m) }
        switch display {
        case .idle: return bad("phase", "an activity is never idle (an idle timer has no activity)")
        case .running(let t), .cycleEnd(let t):
            let key = phase == .running ? "reference" : "next_cycle_at"
            guard Instant.validRange.contains(t) else { return bad(key, "\(t) is outside the instants a timer can hold (\(Instant.validRangeRule))") }
        case .paused, .complete, .tracking: break
        }
        guard cycle >= 1 else { return bad("cycle", "cycles count from 1 (got \(cycle))") }
        if !kind.isUntil {
            if display == .tracking { return bad("reference", "a \(kind.name) that runs has a reference instant") }
            if pushed != nil { return bad("pushed", "only an until activity has pushed content") }
        }
        switch kind {
        case .until:
            if cycle != 1 || totalCycles != nil { return bad("cycle", "an until activity has no cycles: cycle is 1 and cycles null") }
            switch display {
            case .tracking, .complete: break
            case .running, .paused, .cycleEnd, .idle:
                return bad("phase", "an until activity is running or complete (its source owns the end), not \(phase.rawValue)")
            }
            guard let p = pushed else { return bad("pushed", "an until activity has pushed content") }
            if let v = p.violation() { return v.inside("pushed") }
        case .stopwatch:
            if cycle != 1 { return bad("cycle", "a stopwatch has no cycles: cycle is 1 (got \(cycle))") }
            if let n = totalCycles { return bad("cycles", "a stopwatch has no cycles: cycles is null (got \(n))") }
            if phase == .cycleEnd { return bad("phase", "a stopwatch has no cycle end") }
            if case .paused(let f) = display, !(Duration.zero...Limits.maximumActive).contains(f) {
                return bad("frozen_seconds", "a stopwatch's frozen time is 0 to 8 h (got \(f.jsonSeconds) s)")
            }
        case .countdown(let length, let total):
            if totalCycles != total {
                return bad("cycles", "must be the attributes' cycles, \(total.map(String.init) ?? "null") (got \(totalCycles.map(String.init) ?? "null"))")
            }
            if let total, cycle > total { return bad("cycle", "cycle \(cycle) of \(total) is past the session's last cycle") }
            if let total, phase == .cycleEnd, cycle >= total { return bad("cycle", "the last cycle ends in completion, not a cycle end (cycle \(cycle) of \(total))") }
            if case .paused(let f) = display, !(f > .zero && f <= length) {
                return bad("frozen_seconds", "a paused countdown has more than 0 s and at most its cycle (\(length.jsonSeconds) s) left (got \(f.jsonSeconds) s)")
            }
        }
        return nil
    }
}

extension ActivityBook {
    /// A restored book, only if it meets every rule a book built by requests meets: at most
    /// `maximumActivities`, one activity per timer, each activity's own rules (`violation()`).
    public init(validating restored: [Activity]) throws(InvariantViolation) {
        try Self.check(restored)
        self.init(restoring: restored)
    }

    /// The book's rules over a list of activities, each named by its place in the list.
    public static func check(_ list: [Activity]) throws(InvariantViolation) {
        guard list.count <= maximumActivities else {
            throw InvariantViolation(field: "activities", "\(list.count) activities; at most \(maximumActivities) exist at once")
        }
        var seen: [String: Int] = [:]
        for (i, a) in list.enumerated() {
            if let v = a.violation() { throw v.inside("activities[\(i)]") }
            if let j = seen.updateValue(i, forKey: a.timerID) {
                throw InvariantViolation(field: "activities[\(i)].attributes.timer",
                                         "timer \"\(a.timerID)\" already has activities[\(j)]: one activity per timer")
            }
        }
    }
}
