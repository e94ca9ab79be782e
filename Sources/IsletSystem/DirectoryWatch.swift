#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// An inotify watch of one directory for files created or opened in it (non-blocking,
/// close-on-exec): `fd` becomes readable when one was, `names()` says which.
public final class DirectoryWatch: Sendable {
    public let fd: FileDescriptor

    public init(_ directory: String) throws(SystemError) {
        fd = try FileDescriptor(returned: inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)), "inotify_init1")
        guard inotify_add_watch(fd.raw, directory, UInt32(IN_CREATE | IN_OPEN)) >= 0 else {
            throw SystemError("inotify_add_watch \(directory)")
        }
    }

    /// The names of the files the pending events are about, in order; [] when none is pending.
    public func names() -> [String] {
        guard let buf = try? fd.readSome(capacity: 8192), !buf.isEmpty else { return [] }
        var names: [String] = []
        var off = 0
        let header = MemoryLayout<inotify_event>.size
        while off + header <= buf.count {
            // The name's length is the header's last field (bytes 12..<16, host order).
            let len = Int(buf[off + 12]) | Int(buf[off + 13]) << 8 | Int(buf[off + 14]) << 16 | Int(buf[off + 15]) << 24
            let start = off + header
            let end = min(buf.count, start + len)
            names.append(String(decoding: buf[start..<end].prefix(while: { $0 != 0 }), as: UTF8.self))
            off = start + len
        }
        return names
    }
}
