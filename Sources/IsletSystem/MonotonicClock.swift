import CLinux

/// An instant of the kernel's CLOCK_MONOTONIC in nanoseconds: the one clock of the event loop's
/// deadlines, of GPIO edge timestamps (the kernel's default for line events) and of gestures.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }
    public static func < (a: Self, b: Self) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: Self, ns: UInt64) -> Self { Self(nanoseconds: a.nanoseconds &+ ns) }
    public func adding(milliseconds ms: Int64) -> Self {
        let ns = ms.multipliedReportingOverflow(by: 1_000_000)
        if ns.overflow { return ms > 0 ? Self(nanoseconds: .max) : Self(nanoseconds: 0) }
        return adding(nanoseconds: ns.partialValue)
    }
    /// Saturating at the clock's origin and its end.
    public func adding(nanoseconds d: Int64) -> Self {
        if d >= 0 { let r = nanoseconds.addingReportingOverflow(UInt64(d)); return Self(nanoseconds: r.overflow ? .max : r.partialValue) }
        let m = d.magnitude
        return Self(nanoseconds: nanoseconds > m ? nanoseconds - m : 0)
    }
    /// Signed nanoseconds from `other` to self.
    public func nanoseconds(since other: Self) -> Int64 {
        nanoseconds >= other.nanoseconds ? Int64(clamping: nanoseconds - other.nanoseconds)
            : -Int64(clamping: other.nanoseconds - nanoseconds)
    }
    public var description: String { "mono \(nanoseconds / 1_000_000) ms" }
}

/// The system clocks, read in one place.
public enum SystemClock {
    /// CLOCK_MONOTONIC now.
    public static func monotonic() -> MonotonicInstant { MonotonicInstant(nanoseconds: islet_clock_ns(0)) }
    /// CLOCK_BOOTTIME in nanoseconds.
    public static func bootNanoseconds() -> UInt64 { islet_clock_ns(2) }
    /// CLOCK_BOOTTIME in milliseconds (counts suspend): the state file's same-boot reference.
    public static func bootMilliseconds() -> Int64 { Int64(islet_clock_ns(2) / 1_000_000) }
    /// The wall clock (CLOCK_REALTIME) in nanoseconds since 1970.
    public static func wallNanoseconds() -> UInt64 { islet_clock_ns(1) }
    /// The wall clock (CLOCK_REALTIME) in milliseconds since 1970.
    public static func wallMilliseconds() -> Int64 { Int64(islet_clock_ns(1) / 1_000_000) }
    /// The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) in nanoseconds: work, without the
    /// time other processes on a shared core take.
    public static func threadCPUNanoseconds() -> UInt64 { islet_clock_ns(3) }
}
