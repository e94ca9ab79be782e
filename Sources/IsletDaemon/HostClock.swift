import IsletCore

/// The daemon's timeline: the wall clock read once at start plus the monotonic (CLOCK_BOOTTIME)
/// time since, so a wall-clock step while the daemon runs never moves a running timer, while the
/// instants it persists still mean wall time across a restart or a reboot.
public struct HostClock: Sendable {
    private var wallAtBase: Int64
    private var bootAtBase: Int64

    public init() {
        wallAtBase = Posix.wallMilliseconds()
        bootAtBase = Posix.bootMilliseconds()
    }

    /// Now on the timeline.
    public func now() -> Instant { Instant(milliseconds: wallAtBase + (Posix.bootMilliseconds() - bootAtBase)) }

    /// Monotonic milliseconds, for intervals that have nothing to do with wall time.
    public func monotonicMs() -> Int64 { Posix.bootMilliseconds() }

    /// The wall clock as it is now (may have stepped since the base was taken).
    public func wallNow() -> Instant { Instant(milliseconds: Posix.wallMilliseconds()) }

    /// Moves the base to the current wall clock. Only done while the timeline is known to be
    /// wrong: the clock was behind the last save at start and has since been corrected.
    public mutating func rebase() {
        wallAtBase = Posix.wallMilliseconds()
        bootAtBase = Posix.bootMilliseconds()
    }
}
