import IsletSystem
import IsletCore

/// A restart whose wall clock is behind the last save: the timeline stands at the save and the
/// restored activities show stale until the clock catches up, or is set (an NTP step: the
/// timeline then follows it once). Owns the window, the marks it set, and the watch of
/// wall-clock changes in the loop.
final class ClockWatch {
    private let ctx: DaemonContext
    private unowned let loop: EventLoop
    /// The save's instant while the clock is behind it.
    private(set) var behindUntil: Instant?
    /// The timers this watch marked stale (an activity's own stale-after is the core's).
    private var marked: Set<String> = []
    private var watch: WallClockChangeWatch?

    init(_ ctx: DaemonContext, loop: EventLoop) {
        self.ctx = ctx
        self.loop = loop
    }

    var isBehind: Bool { behindUntil != nil }

    /// At start: the clock (`now`) is behind the save. Returns the timers to mark stale.
    func fellBehind(savedAt: Instant, now: Instant, timers: [String]) -> [String] {
        ctx.clock.setFloor(savedAt)
        behindUntil = savedAt
        ctx.log.warning("the wall clock (\(now)) is behind the last save (\(savedAt)); restored activities show stale until it catches up")
        marked.formUnion(timers)
        arm()
        return timers
    }

    /// A timer started afresh is no longer this watch's to clear.
    func forget(_ timer: String) { marked.remove(timer) }

    /// When the timeline passes the save (nil while the clock is not behind).
    var nextDeadline: MonotonicInstant? { behindUntil.map { ctx.clock.monotonicInstant(of: $0) } }

    /// Once the clock has caught up: the timers to mark fresh (only the marks set here).
    func caughtUp() -> [String]? {
        guard let behind = behindUntil, ctx.clock.rawNow() >= behind else { return nil }
        behindUntil = nil
        ctx.clock.setFloor(nil)
        disarm()
        defer { marked = [] }
        ctx.log.notice("the clock has caught up with the last save; activities are no longer stale")
        return marked.sorted()
    }

    private func arm() {
        guard watch == nil else { return }
        do {
            let w = try WallClockChangeWatch()
            try loop.register(w.fd.raw) { [unowned self] _ in clockChanged() }
            watch = w
        } catch {
            ctx.log.warning("cannot watch for wall-clock changes: \(error)")
        }
    }

    private func disarm() {
        guard let w = watch else { return }
        loop.unregister(w.fd.raw)
        watch = nil
    }

    private func clockChanged() {
        guard let w = watch, w.clockWasSet() else { return }
        disarm()
        guard let behind = behindUntil else { return }
        if ctx.clock.rawNow() < behind, ctx.loopClock.wallMilliseconds() >= behind.milliseconds {
            // The clock was wrong at start and has been set: the timeline follows it this once.
            ctx.clock.rebase()
            ctx.log.notice("the wall clock was set; the timeline follows it")
        }
        if behindUntil != nil { arm() }
    }
}
