import Dispatch
import IsletCore
import Synchronization

/// The host clock shared with the store (which stamps each save).
public final class SharedClock: Sendable {
    private let clock: Mutex<HostClock>
    public init(_ c: HostClock = HostClock()) { clock = Mutex(c) }
    public func now() -> Instant { clock.withLock { $0.now() } }
    public func rebase() { clock.withLock { $0.rebase() } }
}

private final class Slot<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// Runs async work to completion from the event-loop thread. That thread is a plain thread,
/// not one of the concurrency pool's, so waiting here cannot starve the actor it waits for.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T? {
    let slot = Slot<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let v = await body()
        slot.value.withLock { $0 = v }
        done.signal()
    }
    done.wait()
    return slot.value.withLock { $0 }
}
