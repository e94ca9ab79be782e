#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

// The few POSIX helpers both isletd and isletctl use (the control client writes and reads its
// socket with them); a module of its own so the client links no GPIO or I²C library.

/// A system call failure: what was attempted, on what, and the errno text.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var errno: Errno
    public init(_ operation: String, _ errno: Errno = .current) {
        self.operation = operation
        self.errno = errno
    }
    public var description: String { "\(operation): \(errno)" }
}

package enum Posix {
    /// Sets O_NONBLOCK and FD_CLOEXEC on a descriptor.
    package static func makeNonblocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        let fdflags = fcntl(fd, F_GETFD)
        if fdflags >= 0 { _ = fcntl(fd, F_SETFD, fdflags | FD_CLOEXEC) }
    }

    /// Fills a sockaddr_un; nil when the path does not fit sun_path.
    package static func unixAddress(_ path: String) -> (sockaddr_un, socklen_t)? {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let len = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
        return (addr, socklen_t(len))
    }

    /// Writes everything, blocking (used by the client and for small files).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var off = 0
        while off < bytes.count {
            let n = SystemCall.retryingInterrupts { bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
            guard n >= 0 else { throw SystemError("write", .current) }
            off += n
        }
    }

    /// mkdir -p with a mode for the directories it creates.
    package static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, mode) != 0 && errno != EEXIST {
                throw SystemError("mkdir \(current)", .current)
            }
        }
    }

    package static func environment(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(cString: v)
    }

    /// Removes `name` from this process's environment (and so from its children's).
    package static func removeEnvironment(_ name: String) { unsetenv(name) }

    /// Monotonic milliseconds including suspend (CLOCK_BOOTTIME).
    package static func bootMilliseconds() -> Int64 { SystemClock.bootMilliseconds() }

    package static func wallMilliseconds() -> Int64 { SystemClock.wallMilliseconds() }
}
