#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// An open file descriptor that belongs to this object: closed exactly once, when `close()` is
/// called or the object goes away. Reads and writes retry EINTR and report errno as `Errno`.
public final class FileDescriptor: @unchecked Sendable {
    // @unchecked: `raw` is only changed by close(), which the owner calls from its own thread.
    public private(set) var raw: Int32

    /// Takes ownership of `raw` (a negative value is an -errno from a C helper: thrown).
    public init(taking raw: Int32, operation: @autoclosure () -> String) throws(SystemError) {
        guard raw >= 0 else { throw SystemError(operation(), Errno(-raw)) }
        self.raw = raw
    }

    /// Takes ownership of a descriptor a system call returned (-1: errno, thrown).
    init(returned raw: Int32, _ operation: @autoclosure () -> String) throws(SystemError) {
        guard raw >= 0 else { throw SystemError(operation(), .current) }
        self.raw = raw
    }

    deinit { if raw >= 0 { _ = Glibc.close(raw) } }

    /// Closes now. close(2) is not retried on EINTR: Linux releases the descriptor regardless.
    public func close() {
        guard raw >= 0 else { return }
        _ = Glibc.close(raw)
        raw = -1
    }

    /// Reads what is there now, up to `capacity` bytes; [] at end of file, nil when it would block.
    public func readSome(capacity: Int) throws(Errno) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let n = SystemCall.retryingInterrupts { buffer.withUnsafeMutableBytes { Glibc.read(raw, $0.baseAddress, capacity) } }
        if n >= 0 { buffer.removeSubrange(n...); return buffer }
        let e = errno
        if e == EAGAIN || e == EWOULDBLOCK { return nil }
        throw Errno(e)
    }

    /// Reads to the end of the file; past `limit` bytes it fails with EFBIG.
    public func readAll(limit: Int) throws(SystemError) -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let chunk: [UInt8]?
            do { chunk = try readSome(capacity: 8192) } catch { throw SystemError("read", error) }
            guard let chunk else { throw SystemError("read", .wouldBlock) }
            if chunk.isEmpty { return out }
            out += chunk
            if out.count > limit { throw SystemError("read", .fileTooLarge) }
        }
    }

    /// Writes every byte, waiting as the descriptor needs (a partial write continues).
    public func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        try Posix.writeAll(raw, bytes)
    }

    /// fsync(2): the file's data and metadata are on the device.
    public func sync() throws(SystemError) {
        guard SystemCall.retryingInterrupts({ Glibc.fsync(raw) }) == 0 else { throw SystemError("fsync") }
    }

    /// fstat(2).
    public func status() throws(SystemError) -> FileStatus {
        var st = stat()
        guard fstat(raw, &st) == 0 else { throw SystemError("stat") }
        return FileStatus(st)
    }
}

/// How `FileDescriptor.open` opens: read-only unless `.writeOnly`; always close-on-exec.
public struct OpenOptions: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static let writeOnly = OpenOptions(rawValue: O_WRONLY)
    public static let readWrite = OpenOptions(rawValue: O_RDWR)
    public static let create = OpenOptions(rawValue: O_CREAT)
    public static let exclusive = OpenOptions(rawValue: O_EXCL)
    public static let truncate = OpenOptions(rawValue: O_TRUNC)
    /// Fails (ELOOP) on a symbolic link instead of following it.
    public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
    public static let directory = OpenOptions(rawValue: O_DIRECTORY)
    /// Neither open(2) nor read(2) waits (a FIFO or device cannot hang the caller).
    public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
    public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
}

extension FileDescriptor {
    /// open(2), retried on EINTR (opening a FIFO or device can be interrupted).
    public static func open(_ path: String, _ options: OpenOptions = [], permissions: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        let fd = SystemCall.retryingInterrupts { Glibc.open(path, options.rawValue | O_CLOEXEC, mode_t(permissions)) }
        return try FileDescriptor(returned: fd, "open \(path)")
    }
}
