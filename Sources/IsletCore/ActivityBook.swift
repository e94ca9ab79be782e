/// What a host gets back from a change: the timer and its transition.
public struct ManagerChange: Sendable {
    public var timerID: String
    public var transition: Transition
    public init(timerID: String, transition: Transition) { self.timerID = timerID; self.transition = transition }
}

/// A start whose durable write has not finished yet. The host hands it back with
/// `ActivityBook.finishStart` once the write is done (or failed).
public struct StartTicket: Hashable, Sendable {
    public let timerID: String
    let serial: UInt64
}

/// The activities and the one set of rules for changing them, as a value: at most one activity
/// per timer id, at most `maximumActivities`, the start gate, and what a start that fails or is
/// cancelled leaves behind. Pure (time is passed in, nothing is written): the daemon's event loop
/// owns one and writes its state off the loop.
///
/// A start is in flight from `beginStart` until `finishStart`: meanwhile the new activity is
/// shown, and every other change to that timer (a second start included) is refused with
/// `start_in_progress`. A start whose write failed or that was cancelled is rolled back: the
/// timer's earlier activity returns where it was, or the timer has none.
public struct ActivityBook: Sendable {
    /// Live activities, oldest start first (the last is "the most recently started").
    public private(set) var activities: [Activity]
    private var pending: [String: Pending] = [:]
    private var serial: UInt64 = 0

    private struct Pending: Sendable {
        var ticket: StartTicket
        var prior: (index: Int, activity: Activity)?
    }

    /// Activities at once (timers with an activity, ended ones still showing included): with this
    /// bound and the attributes' own (64-byte ids, 64-character titles) the state file stays far
    /// below its size limit, so no flood of starts can push the real timers out of it.
    public static let maximumActivities = 16

    public init(restoring: [Activity] = []) {
        var seen = Set<String>()
        // A restored list must still hold one activity per timer: keep the latest of each.
        activities = restoring.reversed().filter { seen.insert($0.timerID).inserted }.reversed()
    }

    public func activity(for timerID: String) -> Activity? { activities.first { $0.timerID == timerID } }

    /// The activity an intent without a timer id acts on: the only one, else the most recently
    /// started. The one place that decides which timer a request or a button means.
    public func resolve(_ timerID: String?) -> Activity? {
        if let timerID { return activity(for: timerID) }
        return activities.last
    }

    /// Timer ids with a start in flight.
    public var startsInFlight: Set<String> { Set(pending.keys) }

    /// The result of an intent: a change that is done, or a start that is in flight until its
    /// ticket is finished.
    public enum Outcome: Sendable {
        case changed(ManagerChange)
        case starting(ManagerChange, StartTicket)

        public var change: ManagerChange {
            switch self { case .changed(let c), .starting(let c, _): c }
        }
    }

    /// Applies a user intent to a timer (nil: `resolve(nil)`). Whether an intent starts an
    /// activity (a start; a toggle from idle or from a finished session) is the transition
    /// table's answer; every start goes through the gate.
    public mutating func apply(_ intent: Intent, timer timerID: String?, now: Instant) throws(Rejection) -> Outcome {
        if case .start(var attrs) = intent {
            if let timerID { attrs.timerID = timerID }
            return try beginStart(attrs, now: now)
        }
        let current = resolve(timerID)
        if case .toggle(var attrs) = intent {
            if let timerID { attrs.timerID = timerID }
            if let id = current?.timerID, pending[id] != nil {
                throw Rejection(.startInProgress, "timer \"\(id)\" is starting; try again in a moment")
            }
            let t = try TimerMachine.apply(.toggle(default: attrs), to: current, now: now)
            if t.effects.contains(.started) { return try beginStart(attrs, now: now) }
            guard let id = current?.timerID else { throw Rejection(.noActivity, "no activity") }
            replace(id, with: t.activity)
            return .changed(ManagerChange(timerID: id, transition: t))
        }
        guard let current else {
            _ = try TimerMachine.apply(intent, to: nil, now: now)   // throws the table's rejection
            throw Rejection(.noActivity, "no activity")
        }
        let id = current.timerID
        guard pending[id] == nil else {
            throw Rejection(.startInProgress, "timer \"\(id)\" is starting; try again in a moment")
        }
        let t = try TimerMachine.apply(intent, to: current, now: now)
        replace(id, with: t.activity)
        return .changed(ManagerChange(timerID: id, transition: t))
    }

    /// Begins a start: the new activity replaces the timer's earlier one (ended, dismissed at
    /// once: `[.replaced, .started]`) in memory now, and stays in flight until `finishStart`.
    public mutating func beginStart(_ attributes: ActivityAttributes, now: Instant) throws(Rejection) -> Outcome {
        let attributes = try attributes.validated()
        let id = attributes.timerID
        guard pending[id] == nil else {
            throw Rejection(.startInProgress, "a start for timer \"\(id)\" is already in progress")
        }
        let prior = activities.firstIndex { $0.timerID == id }.map { (index: $0, activity: activities[$0]) }
        if prior == nil, activities.count >= Self.maximumActivities {
            throw Rejection(.tooManyActivities, "at most \(Self.maximumActivities) activities at once; end one (isletctl end --timer ID) or reuse a timer id")
        }
        let t = try TimerMachine.transition(.start(attributes), from: nil, now: now)
        guard let new = t.activity else { throw Rejection(.invalidAttributes, "start produced no activity") }
        // The loader's rules (Invariants.swift) hold for every activity a start makes.
        if let v = new.violation() { throw Rejection(.invalidAttributes, v.description) }
        activities.removeAll { $0.timerID == id }
        activities.append(new)
        serial += 1
        let ticket = StartTicket(timerID: id, serial: serial)
        pending[id] = Pending(ticket: ticket, prior: prior)
        let effects: [Effect] = prior == nil ? [.started] : [.replaced, .started]
        return .starting(ManagerChange(timerID: id, transition: Transition(activity: new, effects: effects)), ticket)
    }

    /// How a start ended.
    public enum StartEnd: Sendable, Equatable {
        /// Durable: the activity stands and the gate is open again.
        case stood
        /// The write failed: rolled back, the gate is open again.
        case rolledBack
        /// The ticket was no longer in flight (cancelled before its write finished).
        case notInFlight
    }

    /// The write of a start finished (`saved`) or failed. Checked after the suspension: a start
    /// cancelled meanwhile is not revived.
    public mutating func finishStart(_ ticket: StartTicket, saved: Bool) -> StartEnd {
        guard pending[ticket.timerID]?.ticket == ticket else { return .notInFlight }
        if saved {
            pending[ticket.timerID] = nil
            return .stood
        }
        rollBack(ticket.timerID)
        return .rolledBack
    }

    /// Cancels the in-flight start of `timerID`: rolled back now. Returns its ticket, if any.
    @discardableResult
    public mutating func cancelStart(_ timerID: String) -> StartTicket? {
        guard let p = pending[timerID] else { return nil }
        rollBack(timerID)
        return p.ticket
    }

    private mutating func rollBack(_ id: String) {
        guard let p = pending.removeValue(forKey: id) else { return }
        // Back to the state before the request: no orphan, and the replaced activity returns.
        activities.removeAll { $0.timerID == id }
        if let prior = p.prior { activities.insert(prior.activity, at: min(prior.index, activities.count)) }
    }

    /// Takes a timer's state from elsewhere (another display of a sync group, docs/SYNC.md):
    /// `activity` becomes the timer's, or the timer has none (nil). A start in flight for the
    /// timer is superseded by it: its ticket no longer stands (`finishStart` says
    /// `notInFlight`). A timer's new activity takes its place by start time, so "the most
    /// recently started" is the same on every display.
    public mutating func adopt(_ timerID: String, activity: Activity?) throws(Rejection) {
        if let activity, self.activity(for: timerID) == nil, activities.count >= Self.maximumActivities {
            throw Rejection(.tooManyActivities, "at most \(Self.maximumActivities) activities at once; timer \"\(activity.timerID)\" is not shown")
        }
        pending[timerID] = nil
        if let i = activities.firstIndex(where: { $0.timerID == timerID }) {
            if let activity, activity.startedAt == activities[i].startedAt {
                activities[i] = activity
                return
            }
            activities.remove(at: i)
        }
        guard let activity else { return }
        let at = activities.firstIndex { $0.startedAt > activity.startedAt } ?? activities.endIndex
        activities.insert(activity, at: at)
    }

    /// Fires one time event on a timer when it is due (the table refuses one that is not).
    public mutating func fire(_ event: TimeEvent, timer timerID: String?, now: Instant) throws(Rejection) -> ManagerChange {
        guard let current = resolve(timerID) else { throw Rejection(.noActivity, "no activity") }
        let t = try TimerMachine.fire(event, on: current, now: now)
        replace(current.timerID, with: t.activity)
        return ManagerChange(timerID: current.timerID, transition: t)
    }

    /// Applies every due time event of every activity not starting; returns what changed.
    public mutating func advance(to now: Instant) -> [ManagerChange] {
        var changes: [ManagerChange] = []
        for a in activities where pending[a.timerID] == nil {
            let t = TimerMachine.advance(a, to: now)
            if t.activity != a {
                changes.append(ManagerChange(timerID: a.timerID, transition: t))
                replace(a.timerID, with: t.activity)
            }
        }
        return changes
    }

    /// Whether any activity not starting has a time event due at `now` (a shown second ticking
    /// over is not one: it changes the picture, not the state).
    public func hasDueEvent(at now: Instant) -> Bool {
        activities.contains { a in
            pending[a.timerID] == nil
                && (ShownTime.nextDeadline(of: a, after: now).map { $0.at <= now && $0.reason != .shownSecondChanges } ?? false)
        }
    }

    /// The earliest deadline over all activities.
    public func nextDeadline(after now: Instant) -> Deadline? {
        activities.compactMap { ShownTime.nextDeadline(of: $0, after: now) }.min { $0.at < $1.at }
    }

    private mutating func replace(_ id: String, with activity: Activity?) {
        if let i = activities.firstIndex(where: { $0.timerID == id }) {
            if let activity { activities[i] = activity } else { activities.remove(at: i) }
        } else if let activity {
            activities.append(activity)
        }
    }
}
