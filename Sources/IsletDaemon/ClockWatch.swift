import IsletParts
import IsletClock
import IsletConfig
import IsletProtocol
import IsletSystem
import IsletCore

/// A restart whose wall clock is behind the last save: the timeline stands at the save and the
/// restored activities show stale until the clock catches up, or is set (an NTP step: the
/// timeline then follows it once). Owns the window, the marks it set, and the watch of
/// wall-clock changes in the loop.
final class ClockWatch: DaemonPart {
    private let env: PartEnvironment
    private weak var loop: EventLoop?
    private weak var inbox: (any Inbox)?
    /// The save's instant while the clock is behind it.
    private(set) var behindUntil: Instant?
    /// The timers this watch marked stale (an activity's own stale-after is the core's).
    private var marked: Set<String> = []
    private var watch: WallClockChangeWatch?

    init(_ env: PartEnvironment) { self.env = env }

    func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {
        self.loop = loop
        self.inbox = inbox
    }

    /// The restart rule (docs/DAEMON.md, "Time"): after a reboot only the wall clock is left,
    /// and while it is behind the save, time stands at the save and the restored activities
    /// show stale.
    func restored(_ restored: Restored) {
        guard let savedAt = restored.savedAt, restored.now < savedAt, !restored.activities.isEmpty else { return }
        for id in fellBehind(savedAt: savedAt, now: restored.now, timers: restored.activities.map(\.timerID)) {
            inbox?.post(.intent(.markStale, timer: id, source: nil))
        }
    }

    var isBehind: Bool { behindUntil != nil }

    /// While the clock is behind the save, time stands at the save.
    var timeStands: Bool { isBehind }

    func report(into status: inout DaemonStatus, _ turn: TurnView) { status.set("clock_behind", isBehind) }

    /// A timer started afresh is no longer this watch's to clear.
    func take(_ effect: DaemonEffect, _ turn: TurnView) {
        if case .started(let timer) = effect { marked.remove(timer) }
    }

    /// Once the clock has caught up, the timers it marked are fresh again.
    func afterEvents(_ turn: TurnView) {
        if let fresh = caughtUp() {
            for t in fresh { inbox?.post(.intent(.markFresh, timer: t, source: nil)) }
            inbox?.post(.displayChanged)
        }
    }

    /// At start: the clock (`now`) is behind the save. Returns the timers to mark stale.
    func fellBehind(savedAt: Instant, now: Instant, timers: [String]) -> [String] {
        env.clock.setFloor(savedAt)
        behindUntil = savedAt
        env.log.warning("the wall clock (\(now)) is behind the last save (\(savedAt)); restored activities show stale until it catches up")
        marked.formUnion(timers)
        arm()
        return timers
    }

    /// When the timeline passes the save (nil while the clock is not behind).
    var nextDeadline: MonotonicInstant? { behindUntil.map { env.clock.monotonicInstant(of: $0) } }

    /// Once the clock has caught up: the timers to mark fresh (only the marks set here).
    private func caughtUp() -> [String]? {
        guard let behind = behindUntil, env.clock.rawNow() >= behind else { return nil }
        behindUntil = nil
        env.clock.setFloor(nil)
        disarm()
        defer { marked = [] }
        env.log.notice("the clock has caught up with the last save; activities are no longer stale")
        return marked.sorted()
    }

    private func arm() {
        guard watch == nil else { return }
        do {
            let w = try WallClockChangeWatch()
            try loop?.register(w.fd.descriptor) { [unowned self] _ in clockChanged() }
            watch = w
        } catch {
            env.log.warning("cannot watch for wall-clock changes: \(error)")
        }
    }

    private func disarm() {
        guard let w = watch else { return }
        loop?.unregister(w.fd.descriptor)
        watch = nil
    }

    private func clockChanged() {
        guard let w = watch, w.clockWasSet() else { return }
        disarm()
        guard let behind = behindUntil else { return }
        if env.clock.rawNow() < behind, env.loopClock.wallMilliseconds() >= behind.milliseconds {
            // The clock was wrong at start and has been set: the timeline follows it this once.
            env.clock.rebase()
            env.log.notice("the wall clock was set; the timeline follows it")
        }
        if behindUntil != nil { arm() }
    }
}
