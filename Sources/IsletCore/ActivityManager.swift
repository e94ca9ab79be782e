/// Where the manager persists its activities. `save` is a real suspension point (tests hold it
/// open to probe reentrancy).
public protocol ActivityStore: Sendable {
    func save(_ activities: [Activity]) async throws
}

/// A store that keeps nothing, for hosts without persistence.
public struct NoStore: ActivityStore {
    public init() {}
    public func save(_ activities: [Activity]) async throws {}
}

/// The activity manager (LiveActivityManager) for async hosts: an actor around `ActivityBook`
/// (which holds every rule) that awaits the store after each change. The daemon owns a book
/// itself and writes off its event loop; this shell keeps the same guarantees for callers that
/// live in Swift concurrency.
///
/// A start is a cancellable task that checks cancellation after its suspension point (the
/// save); while it is in flight a second start of the same timer is refused
/// (`start_in_progress`) and never creates a second activity; the gate is released on every
/// exit path.
public actor ActivityManager {
    private let store: any ActivityStore
    private var book: ActivityBook
    private var inFlight: [String: Task<Void, any Error>] = [:]

    public init(store: any ActivityStore, restoring: [Activity] = []) {
        self.store = store
        book = ActivityBook(restoring: restoring)
    }

    /// Live activities, oldest start first (the last is "the most recently started").
    public var activities: [Activity] { book.activities }

    /// True while any activity exists that is not ended.
    public var hasActiveActivity: Bool { book.activities.contains { $0.ending == nil } }

    public func activity(for timerID: String) -> Activity? { book.activity(for: timerID) }

    /// Timer ids with a start in flight (for status and tests).
    public var startsInFlight: Set<String> { book.startsInFlight }

    /// The activity an intent without a timer id acts on: the only one, else the most recently started.
    public func resolve(_ timerID: String?) -> Activity? { book.resolve(timerID) }

    /// Starts an activity. A prior activity of the same timer ends with immediate dismissal first.
    @discardableResult
    public func start(_ attributes: ActivityAttributes, now: Instant) async throws(Rejection) -> Activity {
        let outcome = try book.beginStart(attributes, now: now)
        try await settle(outcome)
        guard let a = outcome.change.transition.activity else { throw Rejection(.invalidAttributes, "start produced no activity") }
        return a
    }

    /// Cancels an in-flight start of `timerID`, if any. Returns whether one was in flight.
    @discardableResult
    public func cancelStart(_ timerID: String) -> Bool {
        guard let t = inFlight[timerID] else { return false }
        t.cancel()
        return true
    }

    /// Applies a user intent to a timer (nil: the only activity, else the most recently started).
    /// `start` and `toggle` from idle go through the guarded start.
    @discardableResult
    public func apply(_ intent: Intent, timer timerID: String? = nil, now: Instant) async throws(Rejection) -> ManagerChange {
        let outcome = try book.apply(intent, timer: timerID, now: now)
        try await settle(outcome)
        return outcome.change
    }

    /// A done change is saved (best effort); a start is saved in a cancellable task and stands
    /// only when that save finished and the task was not cancelled.
    private func settle(_ outcome: ActivityBook.Outcome) async throws(Rejection) {
        guard case .starting(_, let ticket) = outcome else {
            await persistBestEffort()
            return
        }
        let id = ticket.timerID
        let snapshot = book.activities
        let store = self.store
        let task = Task {
            try await store.save(snapshot)
            try Task.checkCancellation()
        }
        inFlight[id] = task
        defer { inFlight[id] = nil }
        do {
            try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            _ = book.finishStart(ticket, saved: true)
        } catch {
            // The gate opens and the timer returns to where it was, on this path too.
            _ = book.finishStart(ticket, saved: false)
            try? await store.save(book.activities)
            if error is CancellationError { throw Rejection(.cancelled, "the start of timer \"\(id)\" was cancelled") }
            throw Rejection(.storeFailed, "could not save the new activity: \(error)")
        }
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
        let change = try book.fire(event, timer: timerID, now: now)
        await persistBestEffort()
        return change
    }

    /// Applies every due time event of every activity; returns what changed.
    public func advance(to now: Instant) async -> [ManagerChange] {
        let changes = book.advance(to: now)
        if !changes.isEmpty { await persistBestEffort() }
        return changes
    }

    /// The earliest deadline over all activities.
    public func nextDeadline(after now: Instant) -> Deadline? { book.nextDeadline(after: now) }

    /// The last error the store raised, for status; transitions are never lost to a failing store:
    /// the in-memory state stays authoritative and the next save retries.
    public private(set) var lastStoreError: String?

    private func persistBestEffort() async {
        do {
            try await store.save(book.activities)
            lastStoreError = nil
        } catch {
            lastStoreError = "\(error)"
        }
    }
}
