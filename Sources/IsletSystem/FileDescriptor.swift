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

    deinit { if raw >= 0 { _ = Glibc.close(raw) } }

    public func close() {
        guard raw >= 0 else { return }
        _ = Glibc.close(raw)
        raw = -1
    }

    /// Reads what is there now, up to `capacity` bytes; [] at end of file, nil when it would block.
    public func readSome(capacity: Int) throws(Errno) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(raw, $0.baseAddress, capacity) }
            if n >= 0 { buffer.removeSubrange(n...); return buffer }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return nil }
            throw Errno(e)
        }
    }
}
