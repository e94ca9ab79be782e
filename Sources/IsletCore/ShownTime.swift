/// The time a person sees, and when it next changes. Pure arithmetic on instants.
public enum ShownTime {
    /// Whole seconds to show. A countdown rounds its remaining time up (a 5-minute countdown shows
    /// 5:00 during its first second and 0:00 only at its end); a stopwatch rounds elapsed time down.
    /// The paused case is checked first: a paused timer shows its frozen time whatever the clock says.
    public static func seconds(of a: Activity, at now: Instant) -> Int {
        let stopwatch = a.attributes.kind.isStopwatch
        switch a.content.display {
        case .paused(let frozen):
            let ms = max(0, frozen.wholeMilliseconds)
            return Int(stopwatch ? ms / 1000 : (ms + 999) / 1000)
        case .running(let ref):
            if stopwatch { return Int(max(0, (now - ref).wholeMilliseconds) / 1000) }
            let remaining = countdownRemaining(a, reference: ref, at: now).wholeMilliseconds
            return remaining > 0 ? Int((remaining + 999) / 1000) : 0
        case .tracking:
            // Rounded up like a countdown; 0:00 once the source's instant has passed.
            guard let end = a.content.pushed?.endsAt else { return 0 }
            let remaining = (end - now).wholeMilliseconds
            return remaining > 0 ? Int((remaining + 999) / 1000) : 0
        case .cycleEnd, .complete, .idle:
            return 0
        }
    }

    /// Remaining (countdown) or elapsed (stopwatch) time at `now`, to the millisecond.
    public static func exact(of a: Activity, at now: Instant) -> Duration {
        switch a.content.display {
        case .paused(let frozen): return frozen
        case .running(let ref):
            return a.attributes.kind.isStopwatch ? stopwatchElapsed(reference: ref, at: now) : countdownRemaining(a, reference: ref, at: now)
        case .tracking:
            guard let end = a.content.pushed?.endsAt else { return .zero }
            return max(.zero, end - now)
        case .cycleEnd, .complete, .idle: return .zero
        }
    }

    /// A running stopwatch's elapsed time, within what a paused stopwatch may hold (0 to 8 h,
    /// `ContentState.violation`): a reference after `now` (a clock behind, a forged backup) shows
    /// 0, never a negative time that a pause would save and the loader refuse.
    public static func stopwatchElapsed(reference ref: Instant, at now: Instant) -> Duration {
        min(max(.zero, now - ref), Limits.maximumActive)
    }

    /// A running countdown's remaining time: never below zero, and never more than its cycle
    /// length, whatever the clock says (a clock behind the end reference must not grow it).
    public static func countdownRemaining(_ a: Activity, reference ref: Instant, at now: Instant) -> Duration {
        let r = max(.zero, ref - now)
        if let cycle = a.attributes.kind.cycleLength, r > cycle { return cycle }
        return r
    }

    /// `m:ss`, `mm:ss` or `h:mm:ss`: always ASCII digits, always left to right.
    public static func format(_ seconds: Int) -> String {
        let s = max(0, seconds)
        let h = s / 3600, m = (s / 60) % 60, sec = s % 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(m):\(two(sec))"
    }
}

/// Why the host should wake next.
public enum DeadlineReason: Hashable, Sendable {
    case shownSecondChanges
    case event(TimeEvent)
}

public struct Deadline: Hashable, Sendable {
    public var at: Instant
    public var reason: DeadlineReason
    public init(at: Instant, reason: DeadlineReason) { self.at = at; self.reason = reason }
}

extension ShownTime {
    /// The next instant after `now` at which anything visible changes: the shown second, a cycle
    /// end, the next cycle, completion, dismissal, staleness or the 8 h limit. Paused, complete
    /// and idle activities have no periodic deadline, only one-shot events.
    public static func nextDeadline(of a: Activity, after now: Instant) -> Deadline? {
        var best = TimerMachine.nextEvent(of: a).map { Deadline(at: $0.at, reason: .event($0.event)) }
        if case .running(let ref) = a.content.display, a.ending == nil {
            let tick: Instant
            if a.attributes.kind.isStopwatch {
                let elapsed = max(0, (now - ref).wholeMilliseconds)
                tick = ref + .milliseconds((elapsed / 1000 + 1) * 1000)
            } else {
                let remaining = (ref - now).wholeMilliseconds
                // The shown value ceil(r/1000) drops when r reaches the next lower multiple of 1000.
                let shown = remaining > 0 ? (remaining + 999) / 1000 : 0
                tick = shown > 0 ? ref - .milliseconds((shown - 1) * 1000) : ref
            }
            if tick > now, best.map({ tick < $0.at }) ?? true { best = Deadline(at: tick, reason: .shownSecondChanges) }
        }
        if case .tracking = a.content.display, a.ending == nil, let end = a.content.pushed?.endsAt, end > now {
            // The same ceil rule as a countdown's, against the source's instant.
            let remaining = (end - now).wholeMilliseconds
            let shown = (remaining + 999) / 1000
            let tick = end - .milliseconds((shown - 1) * 1000)
            if tick > now, best.map({ tick < $0.at }) ?? true { best = Deadline(at: tick, reason: .shownSecondChanges) }
        }
        if let b = best, b.at < now { return Deadline(at: now, reason: b.reason) }
        return best
    }
}
