import IsletSystem
import Synchronization

/// The daemon's time: CLOCK_MONOTONIC for its deadlines, CLOCK_BOOTTIME and the wall clock for
/// the timeline (HostClock), and the descriptor that wakes the loop at a deadline. Tests inject
/// a manual clock, so what depends on time is tested without waiting for it.
public protocol LoopClock: AnyObject, Sendable {
    func monotonic() -> MonotonicInstant
    func bootMilliseconds() -> Int64
    func wallMilliseconds() -> Int64
    func bootNanoseconds() -> Int64
    func wallNanoseconds() -> Int64
    /// The CLOCK_MONOTONIC instant at which CLOCK_BOOTTIME reads `ns`.
    func monotonic(atBootNanoseconds ns: Int64) -> MonotonicInstant
    func makeDeadlineTimer() throws(SystemError) -> any DeadlineTimer
}

/// A descriptor that becomes readable at an armed instant.
public protocol DeadlineTimer: AnyObject, Sendable {
    var fd: Int32 { get }
    /// Readable at `instant` (at once if it has passed); nil disarms.
    func arm(at instant: MonotonicInstant?) throws(SystemError)
    /// Consumes the expiry so the descriptor stops being readable.
    func clear()
}

/// The kernel's clocks and a timerfd armed at absolute CLOCK_MONOTONIC instants.
public final class SystemLoopClock: LoopClock {
    public init() {}
    public func monotonic() -> MonotonicInstant { SystemClock.monotonic() }
    public func bootMilliseconds() -> Int64 { SystemClock.bootMilliseconds() }
    public func wallMilliseconds() -> Int64 { SystemClock.wallMilliseconds() }
    public func bootNanoseconds() -> Int64 { Int64(clamping: SystemClock.bootNanoseconds()) }
    public func wallNanoseconds() -> Int64 { Int64(clamping: SystemClock.wallNanoseconds()) }
    public func monotonic(atBootNanoseconds ns: Int64) -> MonotonicInstant {
        // The two clocks differ by the time spent suspended; read both now to convert.
        let mono = SystemClock.monotonic()
        let boot = bootNanoseconds()
        return mono.adding(nanoseconds: ns - boot)
    }
    public func makeDeadlineTimer() throws(SystemError) -> any DeadlineTimer { try TimerFDDeadline() }
}

final class TimerFDDeadline: DeadlineTimer {
    private let timer: MonotonicTimer
    init() throws(SystemError) { timer = try MonotonicTimer() }
    var fd: Int32 { timer.fd.raw }
    func arm(at instant: MonotonicInstant?) throws(SystemError) { try timer.arm(at: instant) }
    func clear() { timer.clear() }
}

/// A clock that moves only when told to (tests): all three clocks advance together, and an
/// armed deadline timer becomes readable once the clock reaches its instant.
public final class ManualLoopClock: LoopClock {
    private struct State {
        var elapsedNs: UInt64 = 0
        var timers: [ManualDeadline] = []
    }
    private let state = Mutex(State())
    private let monoBase: UInt64
    private let bootBase: Int64
    private let wallBase: Int64

    /// Starts at the real clocks' readings (so files and logs stay plausible), then stands still.
    public init() {
        monoBase = SystemClock.monotonic().nanoseconds
        bootBase = SystemClock.bootMilliseconds()
        wallBase = SystemClock.wallMilliseconds()
    }

    public func monotonic() -> MonotonicInstant { MonotonicInstant(nanoseconds: monoBase + state.withLock { $0.elapsedNs }) }
    public func bootMilliseconds() -> Int64 { bootBase + Int64(state.withLock { $0.elapsedNs } / 1_000_000) }
    public func wallMilliseconds() -> Int64 { wallBase + Int64(state.withLock { $0.elapsedNs } / 1_000_000) }

    public func bootNanoseconds() -> Int64 { bootBase * 1_000_000 + Int64(state.withLock { $0.elapsedNs }) }
    public func wallNanoseconds() -> Int64 { wallBase * 1_000_000 + Int64(state.withLock { $0.elapsedNs }) }
    public func monotonic(atBootNanoseconds ns: Int64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: monoBase).adding(nanoseconds: ns - bootBase * 1_000_000)
    }

    public func makeDeadlineTimer() throws(SystemError) -> any DeadlineTimer {
        let t = try ManualDeadline(clock: self)
        state.withLock { $0.timers.append(t) }
        return t
    }

    /// Moves time forward; timers whose instant is reached become readable.
    public func advance(milliseconds ms: Int64) {
        let timers = state.withLock { s -> [ManualDeadline] in
            s.elapsedNs += UInt64(max(0, ms)) * 1_000_000
            return s.timers
        }
        let now = monotonic()
        for t in timers { t.fireIfDue(now) }
    }
}

final class ManualDeadline: DeadlineTimer {
    private let counter: EventCounter
    /// The armed instant. Its lock also covers the descriptor: the loop arms (and clears) while
    /// a test advances the clock, and a fire must neither be drained by an arm that began before
    /// it nor be missed because the clock moved while the instant was being set.
    private let armed = Mutex<MonotonicInstant?>(nil)
    private unowned let clock: ManualLoopClock

    init(clock: ManualLoopClock) throws(SystemError) {
        counter = try EventCounter()
        self.clock = clock
    }
    var fd: Int32 { counter.fd.raw }
    func arm(at instant: MonotonicInstant?) throws(SystemError) {
        armed.withLock { a in
            counter.drain()
            a = instant
            // Read under the lock: an advance either came before (and is seen here) or comes
            // after (and sees this instant).
            fire(&a, ifDueAt: clock.monotonic())
        }
    }
    func clear() { armed.withLock { _ in _ = counter.drain() } }
    func fireIfDue(_ now: MonotonicInstant) { armed.withLock { fire(&$0, ifDueAt: now) } }
    private func fire(_ a: inout MonotonicInstant?, ifDueAt now: MonotonicInstant) {
        guard let at = a, at <= now else { return }
        a = nil
        counter.signal()
    }
}
