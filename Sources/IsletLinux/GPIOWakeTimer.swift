import IsletSystem

/// The kernel's CLOCK_MONOTONIC in nanoseconds: the clock of GPIO edge timestamps, and so the
/// clock the daemon must use for gesture deadlines (IsletSystem's one monotonic clock).
public func monotonicNanoseconds() -> UInt64 { SystemClock.monotonic().nanoseconds }

/// A timerfd on CLOCK_MONOTONIC: a descriptor that becomes readable at an instant, so a source
/// with something due later (a mock button's release) still fits the daemon's event loop.
public final class MonotonicWakeTimer: Sendable {
    private let timer: MonotonicTimer
    public var descriptor: Descriptor { timer.fd.descriptor }

    public init() throws(GPIOError) {
        do { timer = try MonotonicTimer() }
        catch { throw .system(operation: "creating", path: "a timerfd", errno: error.errno) }
    }

    /// Readable at `instant` (monotonic ns); nil disarms. A past instant is readable at once.
    public func arm(at instant: UInt64?) throws(GPIOError) {
        do { try timer.arm(at: instant.map { MonotonicInstant(nanoseconds: $0) }) }
        catch { throw .system(operation: "arming", path: "a timerfd", errno: error.errno) }
    }

    /// Consumes a pending expiry so the descriptor stops being readable.
    public func clear() throws(GPIOError) { timer.clear() }
}
