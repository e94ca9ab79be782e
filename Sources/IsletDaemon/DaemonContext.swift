import IsletSystem

/// What every part reads and none owns alone: the configuration in force (replaced on reload),
/// the log, and the clocks. Shared by reference so a reload is seen by all parts at once.
final class DaemonContext {
    var config: DaemonConfig
    let log: Logger
    /// CLOCK_MONOTONIC for deadlines, CLOCK_BOOTTIME and the wall clock (tests inject one).
    let loopClock: any LoopClock
    /// The timeline (wall clock at start + CLOCK_BOOTTIME since), shared with the writer.
    let clock: HostClock
    let startedAt: MonotonicInstant

    init(config: DaemonConfig, log: Logger, loopClock: any LoopClock) {
        self.config = config
        self.log = log
        self.loopClock = loopClock
        clock = HostClock(loopClock)
        startedAt = loopClock.monotonic()
    }

    var mono: MonotonicInstant { loopClock.monotonic() }
}

/// Retry with exponential backoff: when to try next, and how long the wait after that is.
struct Backoff {
    let initialMs: Int64
    let maximumMs: Int64
    private(set) var delayMs: Int64
    /// When to try again; nil while nothing is failing.
    private(set) var retryAt: MonotonicInstant?

    init(initialMs: Int64, maximumMs: Int64) {
        self.initialMs = initialMs
        self.maximumMs = maximumMs
        delayMs = initialMs
    }

    func isDue(_ mono: MonotonicInstant) -> Bool { retryAt.map { mono >= $0 } ?? false }

    /// A try failed at `mono`: the next one waits the current delay, which then doubles.
    mutating func failed(at mono: MonotonicInstant) {
        retryAt = mono.adding(milliseconds: delayMs)
        delayMs = min(delayMs * 2, maximumMs)
    }

    /// Tries from `mono` on, without growing the delay (a first failure found at start).
    mutating func retry(at mono: MonotonicInstant) { retryAt = mono }

    /// Nothing to retry until the try under way reports (its failure calls `failed`).
    mutating func waitForCompletion() { retryAt = nil }

    mutating func succeeded() {
        retryAt = nil
        delayMs = initialMs
    }
}
