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
    private let socket: FileDescriptor
    public var fd: Int32 { socket.raw }
    private var buffer: [UInt8] = []

    public init(path: String) throws(ClientError) {
        guard UnixSocket.fits(path) else { throw .unavailable("socket path \(path) is too long") }
        let socket: FileDescriptor
        do { socket = try UnixSocket.stream() } catch { throw .unavailable("socket: \(error.errno)") }
        do { try socket.connect(unixPath: path) } catch {
            let e = error.errno
            if e == .permissionDenied {
                // The socket is for its group (the service's is islet, README "The service"): name
                // the group the socket really has, which socket_group may have changed.
                let group = (try? FileSystem.status(path)).flatMap { Identity.groupName(of: $0.group) }
                let g = group ?? "islet"
                throw .unavailable("permission denied on \(path): the socket is for the \(g) group; join it with sudo usermod -aG \(g) $USER, then log in again")
            }
            throw .unavailable("no daemon answers on \(path) (\(e)); is isletd running? (--socket or $ISLET_SOCKET choose another socket)")
        }
        self.socket = socket
    }

    public func send(_ line: [UInt8]) throws(ClientError) {
        do { try socket.sendAll(line) } catch { throw .unavailable("the daemon went away: \(error.errno)") }
    }

    /// The next line, blocking up to `timeoutMs` (-1: forever); nil on timeout.
    public func readLine(timeoutMs: Int32 = -1) throws(ClientError) -> [UInt8]? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            do { guard try socket.waitReadable(timeoutMs: timeoutMs) else { return nil } }
            catch { throw .unavailable("poll: \(error.errno)") }
            // Readable and nothing there (or an error) is the daemon gone, as is its close.
            guard let got = try? socket.receive(capacity: 65536), !got.isEmpty else {
                throw .unavailable("the daemon closed the connection")
            }
            buffer += got
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
