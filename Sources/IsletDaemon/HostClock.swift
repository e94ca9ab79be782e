import IsletPosix
import IsletCore

/// The daemon's timeline: the wall clock read once at start plus the monotonic (CLOCK_BOOTTIME)
/// time since, so a wall-clock step while the daemon runs never moves a running timer, while the
/// instants it persists still mean wall time across a restart or a reboot.
public struct HostClock: Sendable {
    private var wallAtBase: Int64
    private var bootAtBase: Int64
    /// While set, the timeline does not go below it: after a reboot whose wall clock is behind
    /// the last save, time stands at the save until the clock passes it, so nothing is computed
    /// from a clock known to be wrong (a pause freezes the saved value, a countdown never grows).
    private var floor: Instant?

    public init() {
        wallAtBase = Posix.wallMilliseconds()
        bootAtBase = Posix.bootMilliseconds()
    }

    /// Now on the timeline.
    public func now() -> Instant {
        let t = Instant(milliseconds: wallAtBase + (Posix.bootMilliseconds() - bootAtBase))
        if let floor, t < floor { return floor }
        return t
    }

    /// The timeline without the floor: where it really is, to see when it passes the floor.
    public func rawNow() -> Instant { Instant(milliseconds: wallAtBase + (Posix.bootMilliseconds() - bootAtBase)) }

    /// Continues a timeline: `instant` is now (a restart in the same boot continues the last
    /// process's timeline by CLOCK_BOOTTIME, whatever the wall clock says).
    public mutating func continueTimeline(at instant: Instant) {
        wallAtBase = instant.milliseconds
        bootAtBase = Posix.bootMilliseconds()
    }

    public mutating func setFloor(_ f: Instant?) { floor = f }

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
