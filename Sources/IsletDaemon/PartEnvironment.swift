import IsletClock
import IsletConfig
import IsletSystem

/// What every part is given and none changes: the log and the clocks, narrow and immutable.
/// Each part's settings are its own (given at init, replaced by `reload`), not read from here.
struct PartEnvironment {
    let log: Logger
    /// CLOCK_MONOTONIC for deadlines, CLOCK_BOOTTIME and the wall clock (tests inject one).
    let loopClock: any LoopClock
    /// The timeline (wall clock at start + CLOCK_BOOTTIME since), shared with the writer.
    let clock: HostClock
    let startedAt: MonotonicInstant

    init(log: Logger, loopClock: any LoopClock) {
        self.log = log
        self.loopClock = loopClock
        clock = HostClock(loopClock)
        startedAt = loopClock.monotonic()
    }

    var mono: MonotonicInstant { loopClock.monotonic() }
}
