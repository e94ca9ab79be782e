import IsletParts
import IsletSystem

/// The service manager's side: readiness, the status line (sent only when it changes),
/// reloading and stopping, and the watchdog's keep-alive at half its interval.
final class Systemd: DaemonPart {
    private let notifier = SystemdNotifier()
    private var nextWatchdog: MonotonicInstant?
    private var lastStatus = ""

    func ready(status: String, mono: MonotonicInstant) {
        if let w = notifier.watchdogIntervalMs { nextWatchdog = mono.adding(milliseconds: w) }
        lastStatus = status
        notifier.ready(status: status)
    }

    func status(_ s: String) {
        guard s != lastStatus else { return }
        lastStatus = s
        notifier.status(s)
    }

    func reloading() { notifier.reloading() }
    func reloaded(status: String) { notifier.send("READY=1\nSTATUS=\(status)") }
    func stopping() { notifier.stopping() }

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
