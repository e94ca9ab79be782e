import IsletSettings
import IsletParts
import IsletSystem
import IsletConfig

/// How the process is asked to stop or reload: SIGTERM, SIGINT and SIGHUP as a descriptor, the
/// stopper an embedding host or a test uses, and the configuration's reader for a reload.
final class Lifecycle {
    let signals: StopAndReloadSignals
    let stopper: DaemonStopper
    let reload: () throws(ConfigError) -> DaemonConfig
    private(set) var running = true

    init(reload: @escaping () throws(ConfigError) -> DaemonConfig) throws(SystemError) {
        self.reload = reload
        signals = try StopAndReloadSignals()
        stopper = DaemonStopper(try EventCounter())
    }

    func stop() { running = false }

    /// What the signals pending now ask for, oldest first.
    func pendingRequests() -> [StopAndReloadSignals.Request] { signals.pendingRequests() }
}

/// A thread-safe way to stop a running daemon.
public final class DaemonStopper: Sendable {
    let counter: EventCounter
    init(_ counter: EventCounter) { self.counter = counter }
    public func stop() { counter.signal() }
}
