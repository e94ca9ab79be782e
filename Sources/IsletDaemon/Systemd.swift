import IsletParts
import IsletSystem

/// The service manager's side: readiness, the status line (sent only when it changes),
/// reloading and stopping, and the watchdog's keep-alive at half its interval.
final class Systemd: DaemonPart {
    private let notifier = SystemdNotifier()
    private var nextWatchdog: MonotonicInstant?
    private var lastStatus = ""

    func lifecycle(_ event: LifecycleEvent) {
        switch event {
        case .ready(let status, let mono):
            if let w = notifier.watchdogIntervalMs { nextWatchdog = mono.adding(milliseconds: w) }
            lastStatus = status
            notifier.ready(status: status)
        case .reloading: notifier.reloading()
        case .reloaded(let status): notifier.send("READY=1\nSTATUS=\(status)")
        case .stopping: notifier.stopping()
        }
    }

    func status(_ s: String) {
        guard s != lastStatus else { return }
        lastStatus = s
        notifier.status(s)
    }

    var nextDeadline: MonotonicInstant? { nextWatchdog }

    /// The turn's status line, after everything else went out.
    func publish(_ outcome: TurnOutcome) {
        if outcome.change != nil { status(outcome.statusText) }
        pingIfDue(mono: outcome.view.mono)
    }

    private func pingIfDue(mono: MonotonicInstant) {
        guard let next = nextWatchdog, let interval = notifier.watchdogIntervalMs, mono >= next else { return }
        notifier.watchdog()
        nextWatchdog = mono.adding(milliseconds: interval)
    }
}
