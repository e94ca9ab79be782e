#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// An exclusive advisory lock on a file (flock(2)), held as long as the object lives: the
/// kernel releases it when the descriptor closes, so a crash or kill -9 never leaves it stuck.
/// The file also records the holder's PID, so a second process can say who holds it.
public final class FileLock: Sendable {
    private let fd: FileDescriptor

    /// Why a lock was not had.
    public enum Failure: Error, Sendable {
        /// Another process holds it; its PID when the file names one.
        case held(by: Int32?)
        case system(SystemError)
    }

    private init(_ fd: FileDescriptor) { self.fd = fd }

    /// Locks `path` (created with mode 0640 if missing) without waiting, and writes this
    /// process's PID into it.
    public static func acquire(_ path: String) throws(Failure) -> FileLock {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, [.readWrite, .create, .noFollow], permissions: 0o640) }
        catch { throw .system(error) }
        if SystemCall.retryingInterrupts({ flock(fd.raw, LOCK_EX | LOCK_NB) }) != 0 {
            let e = errno
            if e == EWOULDBLOCK { throw .held(by: holder(of: fd)) }
            throw .system(SystemError("flock \(path)", Errno(e)))
        }
        // The PID is a courtesy for the message of the next one: a failure to write it is no
        // reason to run without the lock.
        _ = ftruncate(fd.raw, 0)
        let text = Array("\(getpid())\n".utf8)
        _ = text.withUnsafeBytes { pwrite(fd.raw, $0.baseAddress, $0.count, 0) }
        return FileLock(fd)
    }

    private static func holder(of fd: FileDescriptor) -> Int32? {
        var buf = [UInt8](repeating: 0, count: 32)
        let n = buf.withUnsafeMutableBytes { pread(fd.raw, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buf[..<n], as: UTF8.self).filter(\.isNumber))
    }
}
