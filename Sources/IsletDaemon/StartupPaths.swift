import IsletParts
import IsletSystem
import IsletProtocol
import IsletStore
import IsletConfig

extension DaemonPaths {
    /// The paths for a config, with their directories made and checked: the socket's must be
    /// private, the state directory writable only by its owner (and the daemon's group).
    static func prepare(_ config: DaemonConfig) throws(DaemonStartError) -> DaemonPaths {
        let paths = resolve(config)
        if let slash = paths.socket.lastIndex(of: "/") {
            let dir = String(paths.socket[..<slash])
            if let problem = checkPrivate(dir) { throw DaemonStartError("cannot serve the control socket: \(problem)", status: 69) }
            if dir == sharedTmpFallback {
                do { try Posix.makeDirectories(dir, mode: 0o700) }
                catch { throw DaemonStartError("cannot create \(dir): \(error)", status: 73) }
                if let problem = checkPrivate(dir) { throw DaemonStartError("cannot serve the control socket: \(problem)", status: 69) }
            }
        }
        do { try Posix.makeDirectories(paths.stateDir, mode: 0o750) }
        catch { throw DaemonStartError("cannot create the state directory: \(error)", status: 73) }
        if let problem = FileStore.unsafeDirectory(paths.stateDir) {
            throw DaemonStartError("refusing the state directory: \(problem)", status: 73)
        }
        return paths
    }
}

extension FileLock {
    /// One daemon per state directory: a second one, whatever its socket, would overwrite the
    /// first one's file. Held for the daemon's life (the kernel drops it at exit, however it ends).
    static func stateDirectory(_ dir: String) throws(DaemonStartError) -> FileLock {
        do { return try acquire(dir + "/isletd.lock") }
        catch {
            switch error {
            case .held(let pid):
                let who = pid.map { "another isletd (pid \($0))" } ?? "another isletd"
                throw DaemonStartError("\(who) already uses the state directory \(dir): stop it first (systemctl stop islet), or give this one its own --state-dir", status: 69)
            case .system(let e):
                throw DaemonStartError("cannot lock the state directory \(dir): \(e)", status: 73)
            }
        }
    }
}
