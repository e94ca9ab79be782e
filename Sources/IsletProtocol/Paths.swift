import IsletSystem

/// Where the socket and the state live (the socket is where isletctl finds the daemon) when neither the config nor a flag says.
/// Root (and the systemd unit, through $RUNTIME_DIRECTORY / $STATE_DIRECTORY) use the system
/// places; anyone else uses $XDG_RUNTIME_DIR/islet and $XDG_STATE_HOME/islet.
public struct DaemonPaths: Sendable {
    public var socket: String
    public var stateDir: String

    public init(socket: String, stateDir: String) {
        self.socket = socket
        self.stateDir = stateDir
    }

    public static let systemSocket = "/run/islet/islet.sock"
    public static let systemStateDir = "/var/lib/islet"

    package static func nonEmpty(_ name: String) -> String? {
        Posix.environment(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    public static func defaultSocket() -> String {
        if let d = nonEmpty("RUNTIME_DIRECTORY") { return firstPath(d) + "/islet.sock" }
        if Identity.effectiveUserID == 0 { return systemSocket }
        return userRuntimeDir() + "/islet.sock"
    }

    public static func defaultStateDir() -> String {
        if let d = nonEmpty("STATE_DIRECTORY") { return firstPath(d) }
        if Identity.effectiveUserID == 0 { return systemStateDir }
        if let x = nonEmpty("XDG_STATE_HOME") { return x + "/islet" }
        return home() + "/.local/state/islet"
    }

    package static func userRuntimeDir() -> String {
        if let x = nonEmpty("XDG_RUNTIME_DIR") { return x + "/islet" }
        return sharedTmpFallback
    }

    /// Without $XDG_RUNTIME_DIR the socket goes to a per-user directory in the shared /tmp.
    package static var sharedTmpFallback: String { "/tmp/islet-\(Identity.userID)" }

    /// The /tmp fallback must be a real directory of this user that nobody else can write:
    /// another user who made it first could otherwise swap the socket under isletctl.
    public static func checkPrivate(_ dir: String) -> String? {
        guard dir == sharedTmpFallback else { return nil }
        // Not there yet: it is made 0700 below.
        guard let st = try? FileSystem.status(dir, followLinks: false) else { return nil }
        if st.kind != .directory || st.owner != Identity.userID || st.permissions & 0o022 != 0 {
            return "\(dir) is not a private directory of this user (another user may have made it); remove it, or set $XDG_RUNTIME_DIR or --socket"
        }
        return nil
    }

    package static func home() -> String {
        if let h = nonEmpty("HOME") { return h }
        if let dir = Identity.homeDirectory(of: Identity.userID) { return dir }
        return "/tmp"
    }

    /// systemd passes colon-separated lists when a unit names several directories.
    package static func firstPath(_ list: String) -> String { String(list.split(separator: ":").first ?? Substring(list)) }

    /// Where isletctl looks: $ISLET_SOCKET, then this user's socket if it exists, then the system one.
    public static func clientSocket() -> String {
        if let s = nonEmpty("ISLET_SOCKET") { return s }
        if Identity.effectiveUserID != 0 {
            let dir = userRuntimeDir()
            if FileSystem.exists(dir + "/islet.sock"), checkPrivate(dir) == nil { return dir + "/islet.sock" }
        }
        return systemSocket
    }
}
