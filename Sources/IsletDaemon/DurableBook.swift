import IsletParts
import IsletCore
import IsletSystem
import IsletStore

/// The activities and their durable copy: the one `ActivityBook`, the state file, the writer
/// thread, and the bookkeeping between them (generations handed over and written, starts that
/// wait for their write, the store's health). Nothing else changes the activities.
final class DurableBook: SavedBeside {
    private(set) var book: ActivityBook
    let store: FileStore
    /// The state directory's lock: one daemon per directory, for as long as this one runs.
    private let lock: FileLock
    private let writer: StoreWriter
    private let log: Logger

    /// The generation last handed to the writer; whether the book changed since.
    private(set) var submittedGeneration: UInt64 = 0
    private var dirty = false
    /// Every snapshot up to this generation has been written (or failed).
    private(set) var durableGeneration: UInt64 = 0
    private var startsAwaitingWrite: [(generation: UInt64, ticket: StartTicket)] = []
    /// How each start finished since the answers were last released.
    private var finishedStarts: [StartTicket: (end: ActivityBook.StartEnd, error: String?)] = [:]
    /// What the last write said (nil: it succeeded), for `status`.
    private(set) var storeError: String?
    private var storeFailing = false
    /// A failed write of the latest state is tried again with backoff until one succeeds, so
    /// the file never keeps saying what the daemon no longer holds (a kill -9 would restore it).
    private var retry = Backoff(initialMs: 1000, maximumMs: 30_000)
    private let mono: () -> MonotonicInstant

    /// `slices`: the parts' slices the file held; one whose part is off this time (a group left
    /// for a while) is written back as it was, not lost.
    init(store: FileStore, lock: FileLock, restoring activities: [Activity], slices: [String: any SavedSlice] = [:], log: Logger,
         mono: @escaping () -> MonotonicInstant) throws(SystemError) {
        self.store = store
        self.lock = lock
        self.log = log
        self.mono = mono
        self.slices = slices
        book = ActivityBook(restoring: activities)
        writer = try StoreWriter(save: { try store.saveNow($0.activities, slices: $0.slices) })
    }

    var activities: [Activity] { book.activities }
    /// Readable when a write finished (the loop then calls `takeCompletions`).
    var completionsFD: Descriptor { writer.done.fd.descriptor }
    /// The generation that the next submit will carry: a change's answer waits for it.
    var nextGeneration: UInt64 { submittedGeneration + 1 }

    struct Applied {
        var change: ManagerChange
        var changed: Bool
        /// A start whose answer waits for its write.
        var ticket: StartTicket?
    }

    func apply(_ intent: Intent, timer: String?, now: Instant) throws(Rejection) -> Applied {
        let before = book.activities
        let outcome = try book.apply(intent, timer: timer, now: now)
        var ticket: StartTicket?
        if case .starting(_, let t) = outcome {
            ticket = t
            startsAwaitingWrite.append((nextGeneration, t))
        }
        let changed = book.activities != before
        if changed { dirty = true }
        return Applied(change: outcome.change, changed: changed, ticket: ticket)
    }

    func hasDueEvent(at now: Instant) -> Bool { book.hasDueEvent(at: now) }

    /// Time's own transitions up to `now`.
    func advance(to now: Instant) -> [ManagerChange] {
        let changes = book.advance(to: now)
        if !changes.isEmpty { dirty = true }
        return changes
    }

    /// Cancels a start still waiting for its write (its client left); true when one was.
    func cancelStart(_ timerID: String) -> Bool {
        guard book.cancelStart(timerID) != nil else { return false }
        dirty = true
        return true
    }

    /// Each part's slice of the state file, saved with the activities (`SavedSlice`).
    private var slices: [String: any SavedSlice] = [:]

    /// A part's slice changed: the next submit writes it.
    func keep(_ slice: any SavedSlice) {
        slices[type(of: slice).key] = slice
        dirty = true
    }

    /// Takes another display's state of a timer (docs/SYNC.md); throws when the book refuses it.
    func adopt(_ timerID: String, activity: Activity?) throws(Rejection) {
        let before = book.activities
        try book.adopt(timerID, activity: activity)
        if book.activities != before { dirty = true }
    }

    /// A restored backup's activities replace the book's (docs/WEB.md "Backup"): a timer the
    /// list does not hold ends without a trace, each listed one takes its timer's place. The
    /// list was checked as the state file's is (at most `maximumActivities`, one per timer), so
    /// no step can be refused; if one were, the book stays as it was. Returns the timers changed.
    func replaceAll(with list: [Activity]) throws(Rejection) -> [String] {
        var next = book
        let kept = Set(list.map(\.timerID))
        for a in book.activities where !kept.contains(a.timerID) { try next.adopt(a.timerID, activity: nil) }
        for a in list { try next.adopt(a.timerID, activity: a) }
        let changed = Set(book.activities.map(\.timerID)).union(kept).filter { book.activity(for: $0) != next.activity(for: $0) }
        book = next
        if !changed.isEmpty { dirty = true }
        return changed.sorted()
    }

    /// Hands the book to the writer if it changed (called once the frame is on the bus).
    func submitIfDirty() {
        guard dirty else { return }
        dirty = false
        submittedGeneration += 1
        writer.submit(.init(activities: book.activities, slices: slices), generation: submittedGeneration)
    }

    /// Takes the writer's finished writes: starts stand or roll back, the store's health is
    /// logged. Returns the timers whose start was rolled back (the activities changed).
    func takeCompletions() -> [String] {
        var rolledBack: [String] = []
        for done in writer.takeCompletions() {
            durableGeneration = max(durableGeneration, done.generation)
            noteStore(error: done.error, latest: done.generation == submittedGeneration)
            let finished = startsAwaitingWrite.filter { $0.generation <= done.generation }
            startsAwaitingWrite.removeAll { $0.generation <= done.generation }
            for s in finished {
                let end = book.finishStart(s.ticket, saved: done.error == nil)
                finishedStarts[s.ticket] = (end, done.error)
                if end == .rolledBack {
                    rolledBack.append(s.ticket.timerID)
                    log.warning("the start of timer \"\(s.ticket.timerID)\" could not be saved and was undone: \(done.error ?? "")")
                }
            }
        }
        if !rolledBack.isEmpty { dirty = true }
        return rolledBack
    }

    /// How a start finished (nil: it stood, or is not known), for its held answer.
    func failure(of ticket: StartTicket) -> ProtocolFailure? {
        switch finishedStarts[ticket]?.end {
        case .rolledBack?: .notSaved(finishedStarts[ticket]?.error ?? "unknown error")
        case .notInFlight?: .cancelled
        case .stood?, nil: nil
        }
    }

    /// Every start finished so far has been answered.
    func forgetFinishedStarts() { finishedStarts = [:] }

    enum ProtocolFailure: Equatable {
        case notSaved(String)
        case cancelled
    }

    private func noteStore(error: String?, latest: Bool) {
        storeError = error
        let now = mono()
        // A failing state file is logged, not only shown in status (rate-limited: a full disk
        // fails every save), and its recovery once. Only a failed write of the latest state is
        // retried: a newer one already on its way would make the retry stale.
        if let error {
            if latest { retry.failed(at: now) }
            let when = retry.retryAt.map { " in \(($0.milliseconds - now.milliseconds + 999) / 1000) s" } ?? ""
            log.limited(.error, topic: "store", nowMs: now.milliseconds,
                        "the state file could not be saved (the timers stay right in memory; retrying\(when)): \(error)")
            storeFailing = true
        } else {
            retry.succeeded()
            if storeFailing {
                storeFailing = false
                log.reset(topic: "store")
                log.notice("the state file is saved again")
            }
        }
    }

    /// When a failed save is tried again (nil: nothing failed).
    var nextDeadline: MonotonicInstant? { retry.retryAt }

    /// A failed save whose time has come is submitted again (at the end of the turn).
    func retryIfDue(_ now: MonotonicInstant) {
        guard retry.isDue(now) else { return }
        // Not due again until this write reports; its failure sets the next, longer wait.
        retry.waitForCompletion()
        dirty = true
    }

    /// At shutdown: what is queued is written, and the writer's thread ends.
    func finishWrites() {
        submitIfDirty()
        writer.finish()
    }

    /// The last save stamps this stop (the restart rule measures from it).
    func saveFinalStamp() { try? store.saveNow(book.activities, slices: slices) }
}
