#if canImport(Glibc)
import Glibc
#endif
import IsletErrno
import CLinux

/// The event loop's readiness source: one epoll instance; each registered descriptor is its tag.
public final class Epoll: Sendable {
    public let fd: FileDescriptor

    public init() throws(SystemError) { fd = try FileDescriptor(taking: islet_epoll_create(), operation: "epoll_create1") }

    public func add(_ target: Descriptor, readable: Bool = true, writable: Bool = false) throws(SystemError) {
        let r = islet_epoll_control(fd.raw, 0, target.raw, readable ? 1 : 0, writable ? 1 : 0)
        guard r == 0 else { throw SystemError("epoll_ctl add \(target)", Errno(-r)) }
    }

    public func modify(_ target: Descriptor, readable: Bool, writable: Bool) throws(SystemError) {
        let r = islet_epoll_control(fd.raw, 1, target.raw, readable ? 1 : 0, writable ? 1 : 0)
        guard r == 0 else { throw SystemError("epoll_ctl mod \(target)", Errno(-r)) }
    }

    /// Removes a descriptor (before it is closed); a descriptor already gone is not an error.
    public func remove(_ target: Descriptor) {
        _ = islet_epoll_control(fd.raw, 2, target.raw, 0, 0)
    }

    public struct Ready: Sendable {
        public var descriptor: Descriptor
        public var readable: Bool
        public var writable: Bool
        /// The peer is gone (EPOLLHUP or EPOLLERR), not merely done sending.
        public var hungUp: Bool
    }

    /// Waits up to `timeoutMs` (-1: until something is ready). EINTR returns [].
    public func wait(timeoutMs: Int32) throws(SystemError) -> [Ready] {
        var fds = [Int32](repeating: -1, count: 64)
        var flags = [UInt32](repeating: 0, count: 64)
        let n = islet_epoll_wait(fd.raw, &fds, &flags, 64, timeoutMs)
        if n == -EINTR { return [] }
        guard n >= 0 else { throw SystemError("epoll_wait", Errno(-n)) }
        return (0..<Int(n)).map { Ready(descriptor: Descriptor(fds[$0]), readable: flags[$0] & 1 != 0, writable: flags[$0] & 2 != 0, hungUp: flags[$0] & 4 != 0) }
    }
}

/// A timerfd on CLOCK_MONOTONIC armed at absolute instants: no millisecond rounding, no drift.
public final class MonotonicTimer: Sendable {
    public let fd: FileDescriptor
    public init() throws(SystemError) { fd = try FileDescriptor(taking: islet_timerfd_create(0), operation: "timerfd_create") }

    /// Readable at `instant`; nil disarms. A past instant is readable at once.
    public func arm(at instant: MonotonicInstant?) throws(SystemError) {
        // 0 would disarm: an instant at the clock's origin is "now" for any caller.
        let r = islet_timerfd_arm(fd.raw, instant.map { max($0.nanoseconds, 1) } ?? 0, 0)
        guard r == 0 else { throw SystemError("timerfd_settime", Errno(-r)) }
    }

    /// Consumes pending expirations; returns how many there were.
    @discardableResult
    public func clear() -> Int64 { max(0, islet_timerfd_read(fd.raw)) }
}

/// A descriptor that becomes readable whenever the wall clock is set (TFD_TIMER_CANCEL_ON_SET).
public final class WallClockChangeWatch: Sendable {
    public let fd: FileDescriptor
    public init() throws(SystemError) {
        fd = try FileDescriptor(taking: islet_timerfd_create(1), operation: "timerfd_create")
        // Far in the future: the timer never expires; only a clock change makes it readable.
        let r = islet_timerfd_arm(fd.raw, UInt64(Int64.max / 2), 1)
        guard r == 0 else { throw SystemError("timerfd_settime", Errno(-r)) }
    }
    /// True when the wall clock was set since the watch was armed (the watch must be re-armed).
    public func clockWasSet() -> Bool { islet_timerfd_read(fd.raw) == -Int64(ECANCELED) }
}

/// A counter another thread can bump to wake the loop.
public final class EventCounter: Sendable {
    public let fd: FileDescriptor
    public init() throws(SystemError) { fd = try FileDescriptor(taking: islet_eventfd_create(), operation: "eventfd") }
    public func signal() { _ = islet_eventfd_signal(fd.raw) }
    @discardableResult
    public func drain() -> Int64 { max(0, islet_eventfd_drain(fd.raw)) }
}

/// SIGTERM, SIGINT and SIGHUP as a readable descriptor (blocked for the process's threads first).
public final class StopAndReloadSignals: Sendable {
    public let fd: FileDescriptor
    public init() throws(SystemError) {
        fd = try FileDescriptor(taking: islet_signalfd_for_stop_and_reload(), operation: "signalfd")
    }
    /// The pending signals' numbers, oldest first.
    public func pending() -> [Int32] {
        var out: [Int32] = []
        while true {
            let s = islet_signalfd_next(fd.raw)
            guard s > 0 else { return out }
            out.append(s)
        }
    }

    /// What a received signal asks for.
    public enum Request: Sendable, Equatable {
        /// SIGTERM or SIGINT.
        case stop(signal: Int32)
        /// SIGHUP: read the configuration again.
        case reload
    }

    /// The pending signals as requests, oldest first (no signal numbers to compare).
    public func pendingRequests() -> [Request] {
        pending().map { $0 == SIGHUP ? .reload : .stop(signal: $0) }
    }

    /// SIGPIPE ignored process-wide: a write to a closed pipe or socket fails with EPIPE
    /// instead of ending the process.
    public static func ignoreBrokenPipe() { _ = signal(SIGPIPE, SIG_IGN) }
}
