import CGPIOD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's CLOCK_MONOTONIC in nanoseconds: the clock of GPIO edge timestamps, and so the
/// clock the daemon must use for gesture deadlines.
public func monotonicNanoseconds() -> UInt64 { islet_gpio_monotonic_ns() }

/// A timerfd on CLOCK_MONOTONIC: a descriptor that becomes readable at an instant, so a source
/// with something due later (a mock button's release) still fits the daemon's poll loop.
public final class MonotonicWakeTimer: Sendable {
    public let fileDescriptor: Int32

    public init() throws(GPIOError) {
        let fd = islet_gpio_timer_create()
        guard fd >= 0 else { throw .system(operation: "creating", path: "a timerfd", errno: GPIOErrno(-fd)) }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Readable at `instant` (monotonic ns); nil disarms. A past instant is readable at once.
    public func arm(at instant: UInt64?) throws(GPIOError) {
        // 0 would disarm: an instant at the clock's origin is "now" for any caller.
        let r = islet_gpio_timer_arm(fileDescriptor, instant.map { max($0, 1) } ?? 0)
        guard r == 0 else { throw .system(operation: "arming", path: "a timerfd", errno: GPIOErrno(-r)) }
    }

    /// Consumes a pending expiry so the descriptor stops being readable.
    public func clear() throws(GPIOError) {
        let r = islet_gpio_timer_clear(fileDescriptor)
        guard r == 0 else { throw .system(operation: "reading", path: "a timerfd", errno: GPIOErrno(-r)) }
    }
}
