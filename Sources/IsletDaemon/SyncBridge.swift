import Dispatch
import IsletCore
import Synchronization

/// The host clock shared with the store (which stamps each save).
public final class SharedClock: Sendable {
    private let clock: Mutex<HostClock>
    public init(_ c: HostClock = HostClock()) { clock = Mutex(c) }
    public func now() -> Instant { clock.withLock { $0.now() } }
    public func rebase() { clock.withLock { $0.rebase() } }
    public func continueTimeline(at instant: Instant) { clock.withLock { $0.continueTimeline(at: instant) } }
    public func setFloor(_ f: Instant?) { clock.withLock { $0.setFloor(f) } }
    public func rawNow() -> Instant { clock.withLock { $0.rawNow() } }
}

private final class Slot<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// A task executor drained by the event-loop thread itself. Async work started from the loop
/// (the activity manager's actor included: a default actor runs on its task's preferred
/// executor) runs on that one thread, so the daemon never wakes the concurrency pool, whose
/// worker threads otherwise tick once a second long after the last job.
final class LoopExecutor: TaskExecutor {
    static let shared = LoopExecutor()

    private let jobs = Mutex<[UnownedJob]>([])
    private let signal = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.append(unowned) }
        signal.signal()
    }

    /// Runs queued jobs on the calling thread until `done()` holds; sleeps while there are none
    /// (a job enqueued from another thread, e.g. a resumed continuation, wakes it).
    func run(until done: () -> Bool) {
        while !done() {
            let next: UnownedJob? = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let next { next.runSynchronously(on: asUnownedTaskExecutor()) } else { signal.wait() }
        }
    }

    func wake() { signal.signal() }
}

/// Runs async work to completion from the event-loop thread, on that thread.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T? {
    let slot = Slot<T>()
    let executor = LoopExecutor.shared
    Task(executorPreference: executor) {
        let v = await body()
        slot.value.withLock { $0 = v }
        executor.wake()
    }
    executor.run { slot.value.withLock { $0 != nil } }
    return slot.value.withLock { $0 }
}
