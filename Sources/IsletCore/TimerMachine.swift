/// What a person (or a client) asks of one timer.
public enum Intent: Hashable, Sendable {
    case start(ActivityAttributes)
    case pause
    case resume
    /// Pause ⇄ resume; from IDLE (or a finished session) it starts `default`.
    case toggle(default: ActivityAttributes)
    /// The user's reset: end and dismiss at once.
    case reset
    case end(DismissalPolicy)
    /// A source's new content for its `until` activity (push-to-update).
    case update(ContentUpdate)
    /// Show the expanded presentation for a while (a long press).
    case expand
    /// The host knows the shown time may be wrong (e.g. the clock is behind the last save).
    case markStale
    /// The host knows the shown time is right again (its clock caught up); the stale-after
    /// interval starts over.
    case markFresh
}

/// The time-driven events. Each is due at an instant computed from the state, never from `now`,
/// so a late wake-up never shifts the schedule.
public enum TimeEvent: Hashable, Sendable, CaseIterable {
    case cycleEnded, nextCycle, finalCompletion, dismissal, staleness, lifetimeLimit
}

/// What a transition did, for the host to act on (chime, presentation, logging).
public enum Effect: Hashable, Sendable {
    case started
    /// A start replaced an existing activity of the same timer; the old one ended immediately.
    case replaced
    case paused
    case resumed
    case cycleEnded(cycle: Int)
    case cycleStarted(cycle: Int)
    case completed
    case ended(DismissalPolicy)
    case dismissed
    case becameStale
    case becameFresh
    case expanded
    /// An `until` activity's source changed its content.
    case updated
    /// An update asked for attention: the host shows the expanded presentation and chimes once.
    case alerted
}

/// One transition's result: the timer's new activity (nil is IDLE) and what happened.
public struct Transition: Hashable, Sendable {
    public var activity: Activity?
    public var effects: [Effect]
    public init(activity: Activity?, effects: [Effect]) {
        self.activity = activity
        self.effects = effects
    }
    public var phase: Phase { activity?.phase ?? .idle }
}

/// The pure state machine of one timer: `(Activity?, Intent, now) -> Transition` or a rejection.
/// The explicit table (README.md, "The state machine") is this switch; nothing changes silently.
public enum TimerMachine {

    /// Applies an intent at `now`. Due time events are applied first, so a pause that arrives
    /// after the end instant acts on CYCLE_END or COMPLETE, never on a stale RUNNING.
    public static func apply(_ intent: Intent, to current: Activity?, now: Instant) throws(Rejection) -> Transition {
        let advanced = advance(current, to: now)
        var t = try transition(intent, from: advanced.activity, now: now)
        t.effects = advanced.effects + t.effects
        return t
    }

    /// The table itself: no time is advanced here. Exposed for the table test.
    public static func transition(_ intent: Intent, from current: Activity?, now: Instant) throws(Rejection) -> Transition {
        guard let a = current else {
            switch intent {
            case .start(let attrs): return try begin(attrs, now: now, replacing: false)
            case .toggle(let attrs): return try begin(attrs, now: now, replacing: false)
            case .pause: throw Rejection(.noActivity, "nothing to pause: no activity is running")
            case .resume: throw Rejection(.noActivity, "nothing to resume: no activity is paused")
            case .reset: throw Rejection(.noActivity, "nothing to reset: no activity exists")
            case .end: throw Rejection(.noActivity, "nothing to end: no activity exists")
            case .update: throw Rejection(.noActivity, "nothing to update: no activity exists (start it with kind until first)")
            case .expand: throw Rejection(.noActivity, "nothing to expand: no activity exists")
            case .markStale: throw Rejection(.noActivity, "nothing to mark stale: no activity exists")
            case .markFresh: throw Rejection(.noActivity, "nothing to mark fresh: no activity exists")
            }
        }
        // Never before the activity's last change: an activity made by a clock ahead of this one
        // (a sync member's, a backup's) would otherwise get an updated_at or ended_at before its
        // started_at, which the loader refuses at the next start (every timer lost).
        let now = max(now, a.updatedAt)
        let name: String = switch a.attributes.kind {
        case .stopwatch: "stopwatch"
        case .countdown: "timer"
        case .until: "activity"
        }
        switch (a.content.display, intent) {
        case (_, .start(let attrs)):
            return try begin(attrs, now: now, replacing: true)
        case (_, .reset):
            return Transition(activity: nil, effects: [.ended(.immediate), .dismissed])
        case (_, .expand):
            return Transition(activity: a, effects: [.expanded])
        case (_, .markStale):
            var n = a
            if n.content.isStale { return Transition(activity: a, effects: []) }
            n.content.isStale = true
            return Transition(activity: n, effects: [.becameStale])
        case (_, .markFresh):
            guard a.content.isStale else { return Transition(activity: a, effects: []) }
            return Transition(activity: touched(a, now), effects: [.becameFresh])
        case (.idle, _):
            // An activity never holds `.idle`; treat a corrupt one as absent rather than trap.
            return try transition(intent, from: nil, now: now)

        case (.tracking, .update(let u)):
            guard case .until = a.attributes.kind, let old = a.content.pushed else {
                throw Rejection(.kindMismatch, "only an until activity takes updates")
            }
            let new = u.applied(to: old)
            if let v = new.violation() ?? Self.horizonViolation(new, now: now) { throw Rejection(.invalidAttributes, v.message) }
            // A source that keeps sending is fresh again, whether or not anything changed.
            var n = touched(a, now)
            n.content.pushed = new
            return Transition(activity: n, effects: u.alert ? [.updated, .alerted] : [.updated])
        case (_, .update):
            if !a.attributes.kind.isUntil {
                throw Rejection(.kindMismatch, "timer \"\(a.timerID)\" is a \(a.attributes.kind.name); update changes only an until activity (start a new one to change its kind)")
            }
            throw Rejection(.alreadyComplete, "the activity has ended; start a new one")
        case (.tracking, .pause), (.tracking, .resume), (.tracking, .toggle):
            // The end instant is its source's: nothing here can hold it.
            throw Rejection(.notApplicable, "an until activity ends when its source says: it cannot be paused or resumed")
        case (.tracking, .end(let policy)):
            return finish(a, at: now, policy: policy, natural: false)

        case (.running(let ref), .pause), (.running(let ref), .toggle):
            var n = touched(a, now)
            // Clamped into what the loader accepts (stopwatch 0 to 8 h, countdown more than 0 and
            // at most its cycle), whatever the reference says: never save what a restart refuses.
            n.content.display = .paused(frozen: a.attributes.kind.isStopwatch
                ? ShownTime.stopwatchElapsed(reference: ref, at: now)
                : max(.milliseconds(1), ShownTime.countdownRemaining(a, reference: ref, at: now)))
            return Transition(activity: n, effects: [.paused])
        case (.running, .resume):
            throw Rejection(.alreadyRunning, "the \(name) is already running")

        case (.paused(let frozen), .resume), (.paused(let frozen), .toggle):
            var n = touched(a, now)
            n.content.display = .running(reference: a.attributes.kind.isStopwatch ? now - frozen : now + frozen)
            return Transition(activity: n, effects: [.resumed])
        case (.paused, .pause):
            throw Rejection(.alreadyPaused, "the \(name) is already paused")

        case (.cycleEnd, .pause), (.cycleEnd, .toggle):
            // Pausing during the cycle-end pause holds the session before the next cycle,
            // with that cycle's full length frozen.
            guard case .countdown(let cycle, _) = a.attributes.kind else {
                throw Rejection(.notApplicable, "a stopwatch has no cycles")
            }
            var n = touched(a, now)
            n.content.cycle += 1
            n.content.display = .paused(frozen: cycle)
            return Transition(activity: n, effects: [.paused])
        case (.cycleEnd, .resume):
            throw Rejection(.notPaused, "the timer is not paused: the next cycle starts by itself")

        case (.complete, .toggle(let attrs)):
            return try begin(attrs, now: now, replacing: true)
        case (.complete, .pause), (.complete, .resume):
            throw Rejection(.alreadyComplete, "the session is complete; start a new one")

        case (.complete, .end(let policy)):
            // Re-ending a finished activity changes only when it leaves the pill.
            let endedAt = a.ending?.endedAt ?? now
            if policy.dismissalInstant(endedAt: endedAt) <= now {
                return Transition(activity: nil, effects: [.ended(policy), .dismissed])
            }
            var n = a
            n.ending = Activity.Ending(endedAt: endedAt, policy: policy)
            return Transition(activity: n, effects: [.ended(policy)])
        case (.running, .end(let policy)), (.paused, .end(let policy)), (.cycleEnd, .end(let policy)):
            return finish(a, at: now, policy: policy, natural: false)
        }
    }

    /// Applies one time event if it is due at `now`; otherwise rejects it as not due.
    public static func fire(_ event: TimeEvent, on current: Activity?, now: Instant) throws(Rejection) -> Transition {
        guard let a = current else { throw Rejection(.noActivity, "no activity") }
        guard let at = dueInstant(event, of: a), at <= now else {
            throw Rejection(.notDue, "\(event) is not due in phase \(a.phase.rawValue)")
        }
        switch event {
        case .cycleEnded:
            var n = a
            n.updatedAt = at
            n.content.display = .cycleEnd(nextCycleAt: at + a.attributes.cycleEndInterval)
            return Transition(activity: n, effects: [.cycleEnded(cycle: a.content.cycle)])
        case .finalCompletion:
            var t = finish(a, at: at, policy: .after(at + Limits.completionLinger), natural: true)
            t.effects.insert(.cycleEnded(cycle: a.content.cycle), at: 0)
            return t
        case .nextCycle:
            guard case .countdown(let cycle, _) = a.attributes.kind else { throw Rejection(.notApplicable, "a stopwatch has no cycles") }
            var n = a
            n.updatedAt = at
            n.content.cycle += 1
            n.content.display = .running(reference: at + cycle)
            return Transition(activity: n, effects: [.cycleStarted(cycle: n.content.cycle)])
        case .dismissal:
            return Transition(activity: nil, effects: [.dismissed])
        case .staleness:
            var n = a
            n.content.isStale = true
            return Transition(activity: n, effects: [.becameStale])
        case .lifetimeLimit:
            return finish(a, at: at, policy: .default, natural: false)
        }
    }

    /// When `event` is due for this activity, or nil when it cannot happen in its state.
    public static func dueInstant(_ event: TimeEvent, of a: Activity) -> Instant? {
        switch (event, a.content.display) {
        case (.cycleEnded, .running(let end)), (.finalCompletion, .running(let end)):
            guard case .countdown(_, let cycles) = a.attributes.kind, a.ending == nil else { return nil }
            let isLast = cycles.map { a.content.cycle >= $0 } ?? false
            return (event == .finalCompletion) == isLast ? end : nil
        case (.nextCycle, .cycleEnd(let next)):
            return a.ending == nil ? next : nil
        case (.dismissal, _):
            return a.ending?.dismissAt
        case (.staleness, _):
            return a.staleAt
        case (.lifetimeLimit, _):
            return a.lifetimeEndsAt
        default:
            return nil
        }
    }

    /// The earliest time event and its instant, if any can happen.
    public static func nextEvent(of a: Activity) -> (event: TimeEvent, at: Instant)? {
        var best: (TimeEvent, Instant)?
        for e in TimeEvent.allCases {
            if let t = dueInstant(e, of: a), best.map({ t < $0.1 }) ?? true { best = (e, t) }
        }
        return best.map { (event: $0.0, at: $0.1) }
    }

    /// Applies every time event due at or before `now`, each at its own instant, in order.
    public static func advance(_ current: Activity?, to now: Instant) -> Transition {
        var a = current
        var effects: [Effect] = []
        // Bounded: the 8 h lifetime ends every session, and each step moves time forward.
        for _ in 0..<200_000 {
            guard let cur = a, let (event, at) = nextEvent(of: cur), at <= now,
                  let t = try? fire(event, on: cur, now: now) else { break }
            a = t.activity
            effects += t.effects
        }
        return Transition(activity: a, effects: effects)
    }

    // MARK: helpers

    /// How far ahead a source may put its end: an activity lasts 8 h at most, so an instant
    /// days away is a mistake (or an attack), not a plan.
    public static let untilHorizon: Duration = .seconds(24 * 3600)

    static func horizonViolation(_ p: PushedContent, now: Instant) -> InvariantViolation? {
        guard let end = p.endsAt, end > now, end - now > untilHorizon else { return nil }
        return InvariantViolation(field: "ends_at", "ends_at is more than 24 h ahead (\(ISO8601.format(end)))")
    }

    private static func begin(_ attrs: ActivityAttributes, now: Instant, replacing: Bool) throws(Rejection) -> Transition {
        let attrs = try attrs.validated()
        if case .until(let p) = attrs.kind, let v = horizonViolation(p, now: now) { throw Rejection(.invalidAttributes, v.message) }
        let content: ContentState
        switch attrs.kind {
        case .countdown(let cycle, let cycles):
            content = ContentState(display: .running(reference: now + cycle), cycle: 1, totalCycles: cycles)
        case .stopwatch:
            content = ContentState(display: .running(reference: now), cycle: 1, totalCycles: nil)
        case .until(let initial):
            content = ContentState(display: .tracking, cycle: 1, totalCycles: nil, pushed: initial)
        }
        let n = Activity(attributes: attrs, content: content, startedAt: now)
        return Transition(activity: n, effects: replacing ? [.replaced, .started] : [.started])
    }

    private static func finish(_ a: Activity, at: Instant, policy: DismissalPolicy, natural: Bool) -> Transition {
        let ending = Activity.Ending(endedAt: at, policy: policy)
        var effects: [Effect] = natural ? [.completed] : []
        effects.append(.ended(policy))
        if ending.dismissAt <= at {
            return Transition(activity: nil, effects: effects + [.dismissed])
        }
        var n = a
        n.updatedAt = at
        n.content.display = .complete
        n.ending = ending
        return Transition(activity: n, effects: effects)
    }

    private static func touched(_ a: Activity, _ now: Instant) -> Activity {
        var n = a
        n.updatedAt = now
        n.content.isStale = false
        return n
    }
}
