import IsletErrno
import Dispatch
import IsletCore
import IsletSystem
import Synchronization

/// The durable writes of the activities, on a thread of their own: the event loop hands over a
/// snapshot and goes on serving, rendering and reading buttons while the disk takes its time
/// (fsync on an SD card can take hundreds of milliseconds). Writes happen in order; a snapshot
/// still waiting when a newer one arrives is replaced by it (the newer state includes it).
/// Each finished write is reported with its generation; `done` becomes readable.
public final class StoreWriter: Sendable {
    public struct Completion: Sendable {
        /// Every snapshot up to this generation is on disk (or failed with `error`).
        public var generation: UInt64
        public var error: String?
    }
    /// What one write saves.
    public struct Snapshot: Sendable {
        public var activities: [Activity]
        /// The parts' slices, by key (`SavedSlice`).
        public var slices: [String: any SavedSlice]

        public init(activities: [Activity], slices: [String: any SavedSlice] = [:]) {
            self.activities = activities
            self.slices = slices
        }
    }
    private struct State: Sendable {
        var waiting: (generation: UInt64, snapshot: Snapshot)?
        var completed: [Completion] = []
        var stopping = false
    }
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    public let done: EventCounter
    private let save: @Sendable (Snapshot) throws -> Void

    public init(save: @escaping @Sendable (Snapshot) throws -> Void) throws(SystemError) {
        done = try EventCounter()
        self.save = save
        // The thread holds the writer until its loop ends (after finish()).
        do { try DetachedThread.start { [self] in loop() } }
        catch { throw SystemError("pthread_create (the state writer)", error.errno) }
    }

    /// Queues a snapshot for writing.
    public func submit(_ snapshot: Snapshot, generation: UInt64) {
        state.withLock { $0.waiting = (generation, snapshot) }
        wake.signal()
    }

    /// The writes finished since the last call, oldest first.
    public func takeCompletions() -> [Completion] {
        done.drain()
        return state.withLock { s in defer { s.completed = [] }; return s.completed }
    }

    /// Finishes what is queued, then ends the thread (at shutdown).
    public func finish() {
        state.withLock { $0.stopping = true }
        wake.signal()
        stopped.wait()
    }

    private func loop() {
        while true {
            wake.wait()
            while let job = state.withLock({ s -> (generation: UInt64, snapshot: Snapshot)? in
                let j = s.waiting
                s.waiting = nil
                return j
            }) {
                var error: String?
                do { try save(job.snapshot) } catch let e { error = "\(e)" }
                state.withLock { $0.completed.append(Completion(generation: job.generation, error: error)) }
                done.signal()
            }
            if state.withLock({ $0.stopping && $0.waiting == nil }) { break }
        }
        stopped.signal()
    }
}
