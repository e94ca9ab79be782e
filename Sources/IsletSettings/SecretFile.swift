import IsletSystem
import IsletErrno

/// The one check of a file that holds a secret (a password, a private key), for every part
/// that reads one: readable by the service only and writable by its owner only (a file the
/// group or others may write lets them set the password), and for a password its first line.
public enum SecretFile {
    /// The file's status, once its mode is private enough; `key` names it in errors ("web.key_file").
    public static func checkPrivate(_ path: String, origin: String, key: String) throws(ConfigError) -> FileStatus {
        let st: FileStatus
        do { st = try FileSystem.status(path) }
        catch { throw ConfigError(origin, "\(key) = \(path): \(error.errno)") }
        guard st.kind == .regular else { throw ConfigError(origin, "\(key) = \(path) is not a regular file (a directory, FIFO or device); name a file") }
        if let why = privacyProblem(st.permissions) {
            let mode = String(st.permissions & 0o7777, radix: 8)
            throw ConfigError(origin, "\(key) = \(path) is \(why) (mode 0\(mode)); make it private: chmod 0640 \(path) (group islet) or 0600")
        }
        return st
    }

    /// Why a secret file's mode is refused, in words; nil when it is private enough (0600, 0640, 0400, 0440).
    public static func privacyProblem(_ permissions: UInt32) -> String? {
        let p = permissions & 0o777
        switch (p & 0o004 != 0, p & 0o002 != 0, p & 0o020 != 0) {
        case (true, true, _): return "readable and writable by every user"
        case (true, false, _): return "readable by every user"
        case (false, true, _): return "writable by every user (anyone could set it)"
        case (false, false, true): return "writable by its group (any member could set it)"
        case (false, false, false): return nil
        }
    }

    /// The first line of a private file: the password (UTF-8, not empty).
    public static func password(_ path: String, origin: String, key: String) throws(ConfigError) -> String {
        _ = try checkPrivate(path, origin: origin, key: key)
        switch FileSystem.readFile(path, limit: 4096) {
        case .failure(let e): throw ConfigError(origin, "\(key) = \(path): \(e.errno)")
        case .success(let bytes):
            let first = bytes.split(separator: 10, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
            let line = first.last == 13 ? first.dropLast() : first[...]
            guard !line.isEmpty, let text = String(validating: Array(line), as: UTF8.self) else {
                throw ConfigError(origin, "\(key) = \(path): the first line must hold the password (UTF-8, not empty)")
            }
            return text
        }
    }

    /// A file that must be readable (a certificate): why not, for a config error.
    public static func checkReadable(_ path: String, origin: String, key: String) throws(ConfigError) {
        guard !FileSystem.isReadable(path) else { return }
        let why: String
        do { _ = try FileSystem.status(path); why = "permission denied" }
        catch { why = error.errno.description }
        throw ConfigError(origin, "\(key) = \(path): cannot read it (\(why))")
    }
}
