/// Where the manager persists its activities. `save` is a real suspension point (the daemon
/// writes a file; tests hold it open to probe reentrancy).
public protocol ActivityStore: Sendable {
    func save(_ activities: [Activity]) async throws
}

/// A store that keeps nothing, for hosts without persistence.
public struct NoStore: ActivityStore {
    public init() {}
    public func save(_ activities: [Activity]) async throws {}
}

/// What the manager reports after each change: the timer, its transition, and the full list.
public struct ManagerChange: Sendable {
    public var timerID: String
    public var transition: Transition
}

/// The activity manager (LiveActivityManager): the stateful shell around `TimerMachine`.
///
/// It holds at most one activity per timer id, persists every transition through the store, and
/// guards `start` against reentrancy: a start while another start for the same timer is in
/// flight is refused (`start_in_progress`) and never creates a second activity; the in-flight
/// start is a cancellable task that checks cancellation after every suspension point; the gate
/// is released on every exit path.
public actor ActivityManager {
    private let store: any ActivityStore
    /// Live activities, oldest start first (the last is "the most recently started").
    public private(set) var activities: [Activity]
    private var starting: Set<String> = []
    private var inFlight: [String: Task<Activity, any Error>] = [:]

    public init(store: any ActivityStore, restoring: [Activity] = []) {
        self.store = store
        var seen = Set<String>()
        // A restored list must still hold one activity per timer: keep the latest of each.
        self.activities = restoring.reversed().filter { seen.insert($0.timerID).inserted }.reversed()
    }

    /// True while any activity exists that is not ended.
    public var hasActiveActivity: Bool { activities.contains { $0.ending == nil } }

    public func activity(for timerID: String) -> Activity? { activities.first { $0.timerID == timerID } }

    /// Timer ids with a start in flight (for status and tests).
    public var startsInFlight: Set<String> { starting }

    /// The activity an intent without a timer id acts on: the only one, else the most recently started.
    public func resolve(_ timerID: String?) -> Activity? {
        if let timerID { return activity(for: timerID) }
        return activities.last
    }

    // MARK: start

    /// Starts an activity. A prior activity of the same timer ends with immediate dismissal first.
    @discardableResult
    public func start(_ attributes: ActivityAttributes, now: Instant) async throws(Rejection) -> Activity {
        let attributes = try attributes.validated()
        let id = attributes.timerID
        guard !starting.contains(id) else {
            throw Rejection(.startInProgress, "a start for timer \"\(id)\" is already in progress")
        }
        starting.insert(id)
        defer {
            starting.remove(id)
            inFlight[id] = nil
        }
        let task = Task { try await self.performStart(attributes, now: now) }
        inFlight[id] = task
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch let r as Rejection {
            throw r
        } catch is CancellationError {
            throw Rejection(.cancelled, "the start of timer \"\(id)\" was cancelled")
        } catch {
            throw Rejection(.storeFailed, "could not save the new activity: \(error)")
        }
    }

    /// Cancels an in-flight start of `timerID`, if any. Returns whether one was in flight.
    @discardableResult
    public func cancelStart(_ timerID: String) -> Bool {
        guard let t = inFlight[timerID] else { return false }
        t.cancel()
        return true
    }

    private func performStart(_ attributes: ActivityAttributes, now: Instant) async throws -> Activity {
        let id = attributes.timerID
        // The prior activity of this timer ends (immediate dismissal) and the new one begins in
        // ONE saved state: a crash between two writes must never leave a state no one asked for
        // (the timer gone). After a crash the file holds the state before or after, nothing else.
        let prior = activities.firstIndex { $0.timerID == id }.map { ($0, activities[$0]) }
        if prior == nil, activities.count >= Self.maximumActivities {
            throw Rejection(.tooManyActivities, "at most \(Self.maximumActivities) activities at once; end one (isletctl end --timer ID) or reuse a timer id")
        }
        let t = try TimerMachine.transition(.start(attributes), from: nil, now: now)
        guard let new = t.activity else { throw Rejection(.invalidAttributes, "start produced no activity") }
        activities.removeAll { $0.timerID == id }
        activities.append(new)
        do {
            try await store.save(activities)
            try Task.checkCancellation()
        } catch {
            // Back to the state before the request: no orphan, and the replaced activity returns.
            activities.removeAll { $0.timerID == id }
            if let (index, old) = prior { activities.insert(old, at: min(index, activities.count)) }
            try? await store.save(activities)
            throw error
        }
        return new
    }

    /// Activities at once (timers with an activity, ended ones still showing included): with this
    /// bound and the attributes' own (64-byte ids, 64-character titles) the state file stays far
    /// below its size limit, so no flood of starts can push the real timers out of it.
    public static let maximumActivities = 16

    // MARK: update

    /// Applies a user intent to a timer (nil: the only activity, else the most recently started).
    /// `start` and `toggle` from idle go through the guarded start.
    @discardableResult
    public func apply(_ intent: Intent, timer timerID: String? = nil, now: Instant) async throws(Rejection) -> ManagerChange {
        switch intent {
        case .start(let attrs):
            return try await startChange(timerID.map { var x = attrs; x.timerID = $0; return x } ?? attrs, now: now)
        case .toggle(let defaults):
            let target = resolve(timerID)
            let advanced = TimerMachine.advance(target, to: now).activity
            if advanced == nil || advanced?.phase == .complete {
                var attrs = defaults
                if let timerID { attrs.timerID = timerID }
                return try await startChange(attrs, now: now)
            }
        default:
            break
        }
        guard let current = resolve(timerID) else {
            _ = try TimerMachine.apply(intent, to: nil, now: now)   // throws the table's rejection
            throw Rejection(.noActivity, "no activity")
        }
        let id = current.timerID
        guard !starting.contains(id) else {
            throw Rejection(.startInProgress, "timer \"\(id)\" is starting; try again in a moment")
        }
        let t = try TimerMachine.apply(intent, to: current, now: now)
        await commit(id, t)
        return ManagerChange(timerID: id, transition: t)
    }

    /// A guarded start as a change: `[.replaced, .started]` when the timer had an activity (it
    /// ended, dismissed at once, as `TimerMachine` reports it), else `[.started]`. The host
    /// silences a chime on `.replaced`.
    private func startChange(_ attributes: ActivityAttributes, now: Instant) async throws(Rejection) -> ManagerChange {
        // Read before the start: while it is in flight the gate refuses every other change to
        // this timer, so the answer cannot go stale.
        let replacing = activity(for: attributes.timerID) != nil
        let a = try await start(attributes, now: now)
        return ManagerChange(timerID: a.timerID, transition: Transition(activity: a, effects: replacing ? [.replaced, .started] : [.started]))
    }

    /// showCycleComplete: fires the cycle-end event when it is due.
    @discardableResult
    public func showCycleComplete(timer timerID: String? = nil, now: Instant) async throws(Rejection) -> ManagerChange {
        try await fire(.cycleEnded, timer: timerID, now: now)
    }

    /// showFinalCompletion: fires the final completion when it is due.
    @discardableResult
    public func showFinalCompletion(timer timerID: String? = nil, now: Instant) async throws(Rejection) -> ManagerChange {
        try await fire(.finalCompletion, timer: timerID, now: now)
    }

    /// Ends an activity with an explicit dismissal policy.
    @discardableResult
    public func end(timer timerID: String? = nil, dismissal: DismissalPolicy, now: Instant) async throws(Rejection) -> ManagerChange {
        try await apply(.end(dismissal), timer: timerID, now: now)
    }

    private func fire(_ event: TimeEvent, timer timerID: String?, now: Instant) async throws(Rejection) -> ManagerChange {
        guard let current = resolve(timerID) else { throw Rejection(.noActivity, "no activity") }
        let t = try TimerMachine.fire(event, on: current, now: now)
        await commit(current.timerID, t)
        return ManagerChange(timerID: current.timerID, transition: t)
    }

    /// Applies every due time event of every activity; returns what changed.
    public func advance(to now: Instant) async -> [ManagerChange] {
        var changes: [ManagerChange] = []
        for a in activities where !starting.contains(a.timerID) {
            let t = TimerMachine.advance(a, to: now)
            if t.activity != a {
                changes.append(ManagerChange(timerID: a.timerID, transition: t))
                replace(a.timerID, with: t.activity)
            }
        }
        if !changes.isEmpty { await persistBestEffort() }
        return changes
    }

    /// The earliest deadline over all activities.
    public func nextDeadline(after now: Instant) -> Deadline? {
        activities.compactMap { ShownTime.nextDeadline(of: $0, after: now) }.min { $0.at < $1.at }
    }

    /// The last error the store raised, for status; transitions are never lost to a failing store:
    /// the in-memory state stays authoritative and the next save retries.
    public private(set) var lastStoreError: String?

    private func commit(_ id: String, _ t: Transition) async {
        replace(id, with: t.activity)
        await persistBestEffort()
    }

    private func replace(_ id: String, with activity: Activity?) {
        if let i = activities.firstIndex(where: { $0.timerID == id }) {
            if let activity { activities[i] = activity } else { activities.remove(at: i) }
        } else if let activity {
            activities.append(activity)
        }
    }

    private func persistBestEffort() async {
        do {
            try await store.save(activities)
            lastStoreError = nil
        } catch {
            lastStoreError = "\(error)"
        }
    }
}
