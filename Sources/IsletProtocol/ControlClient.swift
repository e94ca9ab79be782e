#if canImport(Glibc)
import Glibc
#endif
import IsletErrno
import FoundationEssentials
import IsletCore
import IsletSystem

public enum ClientError: Error, CustomStringConvertible {
    case unavailable(String)
    case protocolViolation(String)
    /// The daemon accepted the connection but did not answer in time (stopped, or stuck).
    case timedOut(String)

    public var description: String {
        switch self {
        case .unavailable(let m): m
        case .protocolViolation(let m): m
        case .timedOut(let m): m
        }
    }
}

/// A blocking connection to the daemon's control socket.
public final class ControlClient {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(path: String) throws(ClientError) {
        guard let (addr0, len) = Posix.unixAddress(path) else { throw .unavailable("socket path \(path) is too long") }
        var addr = addr0
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .unavailable("socket: \(Errno.current)") }
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, len) } }
        guard r == 0 else {
            let e = Errno.current
            close(fd)
            if e.code == EACCES {
                // The socket is for its group (the service's is islet, README "The service"): name
                // the group the socket really has, which socket_group may have changed.
                var st = stat()
                let group = stat(path, &st) == 0 ? getgrgid(st.st_gid).map { String(cString: $0.pointee.gr_name) } : nil
                let g = group ?? "islet"
                throw .unavailable("permission denied on \(path): the socket is for the \(g) group; join it with sudo usermod -aG \(g) $USER, then log in again")
            }
            throw .unavailable("no daemon answers on \(path) (\(e)); is isletd running? (--socket or $ISLET_SOCKET choose another socket)")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    public func send(_ line: [UInt8]) throws(ClientError) {
        do { try Posix.writeAll(fd, line) } catch { throw .unavailable("the daemon went away: \(error.errno)") }
    }

    /// The next line, blocking up to `timeoutMs` (-1: forever); nil on timeout.
    public func readLine(timeoutMs: Int32 = -1) throws(ClientError) -> [UInt8]? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, timeoutMs)
            if n == 0 { return nil }
            if n < 0 { if errno == EINTR { continue }; throw .unavailable("poll: \(Errno.current)") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got <= 0 {
                if got < 0, errno == EINTR { continue }
                throw .unavailable("the daemon closed the connection")
            }
            buffer += chunk[0..<got]
        }
    }

    public static func decode(_ line: [UInt8]) throws(ClientError) -> ControlResponse {
        do { return try JSONDecoder().decode(ControlResponse.self, from: Data(line)) }
        catch { throw .protocolViolation("the daemon sent an answer this isletctl does not understand: \(error)") }
    }

    /// How long a request waits for its answer (`watch` streams without one).
    public static let answerTimeoutMs: Int32 = 10_000

    /// One request, one answer. A daemon that refuses the connection (too many clients) says
    /// why and closes it, so the write can fail: its reason is read and returned all the same.
    public func request(_ r: ControlRequest, timeoutMs: Int32 = ControlClient.answerTimeoutMs) throws(ClientError) -> (raw: [UInt8], response: ControlResponse) {
        do { try send(r.encodedLine()) } catch {
            if let line = try? readLine(timeoutMs: 1000), let answer = try? Self.decode(line) { return (line, answer) }
            throw error
        }
        guard let line = try readLine(timeoutMs: timeoutMs) else {
            throw .timedOut("the daemon accepted the connection but did not answer within \(timeoutMs / 1000) s (is isletd stopped or stuck? systemctl status isletd)")
        }
        return (line, try Self.decode(line))
    }
}

extension ControlResponse {
    /// A response put together by the client itself (isletctl watch describes its own picture).
    package init(ok: Bool, activities: [Activity], now: Instant) {
        self.init(ok: ok, activities: activities.map { ActivityReport(activity: $0, now: now) }, now: now)
    }
}
