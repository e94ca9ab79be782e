#if canImport(Glibc)
import Glibc
#endif

/// Where the socket and the state live when neither the config nor a flag says.
/// Root (and the systemd unit, through $RUNTIME_DIRECTORY / $STATE_DIRECTORY) use the system
/// places; anyone else uses $XDG_RUNTIME_DIR/islet and $XDG_STATE_HOME/islet.
public struct DaemonPaths: Sendable {
    public var socket: String
    public var stateDir: String

    public static let systemSocket = "/run/islet/islet.sock"
    public static let systemStateDir = "/var/lib/islet"

    public static func resolve(_ c: DaemonConfig) -> DaemonPaths {
        DaemonPaths(socket: c.socketPath ?? defaultSocket(), stateDir: c.stateDir ?? defaultStateDir())
    }

    static func nonEmpty(_ name: String) -> String? {
        Posix.environment(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    public static func defaultSocket() -> String {
        if let d = nonEmpty("RUNTIME_DIRECTORY") { return firstPath(d) + "/islet.sock" }
        if geteuid() == 0 { return systemSocket }
        return userRuntimeDir() + "/islet.sock"
    }

    public static func defaultStateDir() -> String {
        if let d = nonEmpty("STATE_DIRECTORY") { return firstPath(d) }
        if geteuid() == 0 { return systemStateDir }
        if let x = nonEmpty("XDG_STATE_HOME") { return x + "/islet" }
        return home() + "/.local/state/islet"
    }

    static func userRuntimeDir() -> String {
        if let x = nonEmpty("XDG_RUNTIME_DIR") { return x + "/islet" }
        return "/tmp/islet-\(getuid())"
    }

    static func home() -> String {
        if let h = nonEmpty("HOME") { return h }
        if let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { return String(cString: dir) }
        return "/tmp"
    }

    /// systemd passes colon-separated lists when a unit names several directories.
    static func firstPath(_ list: String) -> String { String(list.split(separator: ":").first ?? Substring(list)) }

    /// Where isletctl looks: $ISLET_SOCKET, then this user's socket if it exists, then the system one.
    public static func clientSocket() -> String {
        if let s = nonEmpty("ISLET_SOCKET") { return s }
        if geteuid() != 0 {
            let user = userRuntimeDir() + "/islet.sock"
            if FileIO.exists(user) { return user }
        }
        return systemSocket
    }
}
