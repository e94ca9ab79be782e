#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// Unix-domain sockets: the daemon's control socket, isletctl's connection, systemd's notify
/// socket. A path starting with `@` is in the abstract namespace.
public enum UnixSocket {
    /// Whether `path` fits a sockaddr_un.
    public static func fits(_ path: String) -> Bool { Posix.unixAddress(path) != nil }

    /// A new stream socket (close-on-exec; non-blocking when asked).
    public static func stream(nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return try FileDescriptor(returned: socket(AF_UNIX, type, 0), "socket")
    }

    /// A new datagram socket (close-on-exec).
    public static func datagram() throws(SystemError) -> FileDescriptor {
        try FileDescriptor(returned: socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket")
    }

    /// Whether something accepts connections at `path` (a connect succeeds).
    public static func answers(_ path: String) -> Bool {
        guard let fd = try? stream() else { return false }
        return (try? fd.connect(unixPath: path)) != nil
    }

    /// Sends one datagram to the socket at `path`; true when all of it went.
    @discardableResult
    public static func sendDatagram(_ bytes: [UInt8], to path: String) -> Bool {
        guard let (addr0, len) = Posix.unixAddress(path),
              let fd = try? datagram()
        else { return false }
        var addr = addr0
        let n = SystemCall.retryingInterrupts {
            withUnsafePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    bytes.withUnsafeBytes { sendto(fd.raw, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, len) }
                }
            }
        }
        return n == bytes.count
    }

    /// The kernel's most for a listen backlog (net.core.somaxconn caps it).
    public static var maximumBacklog: Int32 { SOMAXCONN }
}

extension FileDescriptor {
    private func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(SystemError) -> R {
        guard let (addr0, len) = Posix.unixAddress(path) else {
            throw SystemError("socket path \(path) is too long for a Unix socket", .fileNameTooLong)
        }
        var addr = addr0
        return withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, len) } }
    }

    public func bind(unixPath path: String) throws(SystemError) {
        let r = try withAddress(path) { Glibc.bind(raw, $0, $1) }
        guard r == 0 else { throw SystemError("bind \(path)") }
    }

    public func listen(backlog: Int32 = UnixSocket.maximumBacklog) throws(SystemError) {
        guard Glibc.listen(raw, backlog) == 0 else { throw SystemError("listen") }
    }

    /// Connects (blocking). An interrupted connect goes on in the kernel: wait for it to finish
    /// and take its outcome from SO_ERROR rather than connecting again (EALREADY).
    public func connect(unixPath path: String) throws(SystemError) {
        let r = try withAddress(path) { Glibc.connect(raw, $0, $1) }
        if r == 0 { return }
        guard errno == EINTR else { throw SystemError("connect \(path)") }
        var p = pollfd(fd: raw, events: Int16(POLLOUT), revents: 0)
        guard SystemCall.retryingInterrupts({ poll(&p, 1, -1) }) >= 0 else { throw SystemError("poll") }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(raw, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { throw SystemError("getsockopt") }
        guard error == 0 else { throw SystemError("connect \(path)", Errno(error)) }
    }

    /// The next pending connection (non-blocking, close-on-exec); nil when none waits.
    /// (accept4 is not in Glibc's Swift module; the daemon does not fork, so setting the flags
    /// just after is as good.)
    public func accept() throws(SystemError) -> FileDescriptor? {
        let fd = SystemCall.retryingInterrupts { Glibc.accept(raw, nil, nil) }
        if fd >= 0 { Posix.makeNonblocking(fd); return try FileDescriptor(returned: fd, "accept") }
        let e = errno
        if e == EAGAIN || e == EWOULDBLOCK { return nil }
        throw SystemError("accept", Errno(e))
    }

    /// recv(2) of what is there, up to `capacity` bytes: [] when the peer has closed, nil when
    /// nothing is there now (a non-blocking socket).
    public func receive(capacity: Int) throws(SystemError) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let n = SystemCall.retryingInterrupts { buffer.withUnsafeMutableBytes { recv(raw, $0.baseAddress, $0.count, 0) } }
        if n >= 0 { buffer.removeSubrange(n...); return buffer }
        let e = errno
        if e == EAGAIN || e == EWOULDBLOCK { return nil }
        throw SystemError("recv", Errno(e))
    }

    /// Sends as much as the socket takes now (never SIGPIPE); the count, 0 when it is full.
    public func sendSome(_ bytes: ArraySlice<UInt8>) throws(SystemError) -> Int {
        let n = SystemCall.retryingInterrupts { bytes.withUnsafeBytes { send(raw, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
        if n >= 0 { return n }
        let e = errno
        if e == EAGAIN || e == EWOULDBLOCK { return 0 }
        throw SystemError("send", Errno(e))
    }

    /// Sends every byte, blocking (never SIGPIPE: a closed peer is EPIPE).
    public func sendAll(_ bytes: [UInt8]) throws(SystemError) {
        var off = 0
        while off < bytes.count {
            let n = SystemCall.retryingInterrupts { bytes[off...].withUnsafeBytes { send(raw, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
            guard n >= 0 else { throw SystemError("send") }
            off += n
        }
    }

    /// Bytes sent but not yet read by the peer (TIOCOUTQ); nil when the kernel does not say.
    public func unreadOutput() -> Int? {
        var queued: Int32 = 0
        return ioctl(raw, UInt(TIOCOUTQ), &queued) == 0 ? Int(queued) : nil
    }

    /// Waits up to `timeoutMs` (-1: forever) for something to read; false on timeout. A signal
    /// restarts the wait.
    public func waitReadable(timeoutMs: Int32) throws(SystemError) -> Bool {
        var p = pollfd(fd: raw, events: Int16(POLLIN), revents: 0)
        let n = SystemCall.retryingInterrupts { poll(&p, 1, timeoutMs) }
        guard n >= 0 else { throw SystemError("poll") }
        return n > 0
    }
}
