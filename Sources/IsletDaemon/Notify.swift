import IsletParts
import IsletSystem

/// The systemd notify protocol (sd_notify(3)) without libsystemd: one datagram of
/// `KEY=VALUE` lines to the AF_UNIX socket named by $NOTIFY_SOCKET (`@` means abstract).
public final class SystemdNotifier {
    private let path: String?
    /// Half the watchdog interval the unit asked for, in ms; nil when no watchdog is wanted.
    public let watchdogIntervalMs: Int64?

    public init() {
        path = Posix.environment("NOTIFY_SOCKET").flatMap { $0.isEmpty ? nil : $0 }
        var interval: Int64?
        if let usec = Posix.environment("WATCHDOG_USEC").flatMap({ Int64($0) }), usec > 0 {
            // WATCHDOG_PID, when set, names the process the watchdog is meant for.
            let pid = Posix.environment("WATCHDOG_PID").flatMap { Int32($0) }
            if pid == nil || pid == Identity.processID { interval = max(1, usec / 2000) }
        }
        watchdogIntervalMs = interval
    }

    public var isActive: Bool { path != nil }

    /// Sends one message; failures are returned, never fatal (systemd may be gone).
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let path else { return false }
        return UnixSocket.sendDatagram(Array(message.utf8), to: path)
    }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)\nMAINPID=\(Identity.processID)") }
    public func status(_ s: String) { send("STATUS=\(s)") }
    public func watchdog() { send("WATCHDOG=1") }
    public func reloading() { send("RELOADING=1") }
    public func stopping() { send("STOPPING=1") }
}
