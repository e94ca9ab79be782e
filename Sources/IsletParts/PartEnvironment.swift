import IsletClock
import IsletSettings
import IsletSystem

/// What every part is given and none changes: the log and the clocks, narrow and immutable.
/// Each part's settings are its own (given at init, replaced by `reload`), not read from here.
package struct PartEnvironment {
    package let log: Logger
    /// CLOCK_MONOTONIC for deadlines, CLOCK_BOOTTIME and the wall clock (tests inject one).
    package let loopClock: any LoopClock
    /// The timeline (wall clock at start + CLOCK_BOOTTIME since), shared with the writer.
    package let clock: HostClock
    package let startedAt: MonotonicInstant

    package init(log: Logger, loopClock: any LoopClock) {
        self.log = log
        self.loopClock = loopClock
        clock = HostClock(loopClock)
        startedAt = loopClock.monotonic()
    }

    package var mono: MonotonicInstant { loopClock.monotonic() }
}
