import IsletParts
import IsletErrno
import IsletSystem
import IsletProtocol
import IsletCore

/// One connected client: nonblocking, with its own input and output buffers, so a slow or
/// silent client never holds up anyone else.
final class ClientConnection {
    /// The descriptor's number, kept after close so the loop can still unregister it.
    let fd: Int32
    let socket: FileDescriptor
    let id: Int
    /// The same number as the loop's table takes it (not owning it).
    var descriptor: Descriptor { Descriptor(fd) }
    var input: [UInt8] = []
    var output: [UInt8] = []
    var outputOffset = 0
    var watching = false
    /// Stop reading; close once the output is flushed (after a protocol violation).
    var closing = false
    /// When the client last sent a byte (CLOCK_BOOTTIME ms), or connected.
    var lastActiveMs: Int64
    /// When the unfinished line now in `input` began (nil: none): a line must be finished
    /// within `ControlServer.lineTimeoutMs`, or a trickler could hold its place forever.
    var partialSinceMs: Int64?
    /// When the client last took output off its socket (or connected): the stalest watcher is
    /// the one evicted first when the daemon is full.
    var lastDrainedMs: Int64
    /// Answers waiting for a durable write (or queued behind one), in request order.
    var awaiting: [DeferredAnswer] = []

    init(socket: FileDescriptor, id: Int, nowMs: Int64) {
        self.socket = socket; fd = socket.raw; self.id = id
        lastActiveMs = nowMs
        lastDrainedMs = nowMs
    }

    var pendingOutput: Int { output.count - outputOffset }

    /// Its answers are piling up unread: take no more of its requests until it reads them
    /// (backpressure instead of dropping a client that reads, only slower than it writes).
    /// Answers held for a write count too: a settings flood holds up to 500 ms of answers.
    var throttled: Bool { !watching && (pendingOutput > ControlServer.throttleOutputBytes || awaiting.count >= ControlServer.maximumAwaiting) }

    /// A complete request line is waiting in `input`.
    var hasBufferedLine: Bool { !closing && !throttled && input.contains(10) }

    func queue(_ line: [UInt8]) {
        if outputOffset > 0 && outputOffset == output.count { output.removeAll(keepingCapacity: true); outputOffset = 0 }
        output += line
    }
}

/// An answer held back: until the end of the turn, and the write of its change is durable (a
/// start's answer depends on how its write ended), or behind such an answer (`line` already made).
struct DeferredAnswer {
    var pending: PendingAnswer
    var line: [UInt8]?
    var requestID: String? = nil
}

/// The control socket: a listening Unix stream socket and its clients, serviced from the
/// daemon's poll loop. It frames JSON Lines and leaves their meaning to a handler.
final class ControlServer {
    let path: String
    let listener: FileDescriptor
    /// The listening descriptor's number (kept after shutdown, like a client's).
    let listenFD: Int32
    private(set) var clients: [Int32: ClientConnection] = [:]
    private var nextID = 1
    /// CLOCK_BOOTTIME in ms: the daemon's loop clock, so its deadlines (a line's timeout, an
    /// idle client's eviction) move with the clock a test injects.
    let nowMs: () -> Int64
    static let maximumClients = 64
    /// At the limit, a client that has not sent a byte for this long (and is not watching)
    /// gives its place to a newcomer, so silent connections cannot lock everyone out.
    static let idleEvictionMs: Int64 = 1000
    /// A watcher that lets this much output pile up is not reading: it is dropped.
    static let maximumPendingOutput = 1 << 20
    /// A requester with this much unread output is not served further until it reads.
    static let throttleOutputBytes = 64 * 1024
    /// A requester with this many answers held for a write is not served further until they go.
    static let maximumAwaiting = 4096
    /// Requests answered per client per loop turn: a client that pipelines thousands of
    /// requests gets them answered in turns, between everyone else's.
    static let linesPerTurn = 8
    /// Requests answered per turn in all, shared by the clients that pipeline: with many of them
    /// each gets `linesPerTurn` or an equal share of this, at least one. A turn stays short, so a
    /// person's request waits behind a bounded number of others (16 pipelining clients: 2 each).
    static let linesPerTurnInAll = 32

    /// Each busy client's lines this turn, when `busy` clients had lines waiting at the last one.
    static func share(busy: Int) -> Int { max(1, min(linesPerTurn, linesPerTurnInAll / max(1, busy))) }
    /// A request line must be complete this long after its first byte.
    static let lineTimeoutMs: Int64 = 5000

    /// Binds the socket. An existing socket that answers means another daemon runs: refuse;
    /// one that does not answer is a leftover of a crash: replace it.
    init(path: String, mode: UInt32, group: String?, nowMs: @escaping () -> Int64) throws(SystemError) {
        self.path = path
        self.nowMs = nowMs
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try Posix.makeDirectories(String(path[..<slash]), mode: 0o755)
        }
        guard UnixSocket.fits(path) else {
            throw SystemError("socket path \(path) is too long for a Unix socket", .fileNameTooLong)
        }
        if ControlServer.answers(path) {
            throw SystemError("another isletd already serves \(path)", .addressInUse)
        }
        // Only ever remove a stale socket: a mistyped --socket must not delete someone's file.
        if let st = try? FileSystem.status(path, followLinks: false) {
            guard st.kind == .socket else {
                throw SystemError("\(path) exists and is not a socket: refusing to replace it; choose another --socket or socket path", .fileExists)
            }
            try? FileSystem.remove(path)
        }
        let fd = try UnixSocket.stream(nonBlocking: true)
        try fd.bind(unixPath: path)
        if let group {
            guard let gid = Identity.groupID(named: group) else {
                try? FileSystem.remove(path)
                throw SystemError("socket group \"\(group)\" does not exist", .noSuchFileOrDirectory)
            }
            do { try FileSystem.setGroup(path, gid) } catch {
                try? FileSystem.remove(path)
                throw SystemError("chown \(path) to group \(group)", error.errno)
            }
        }
        try FileSystem.setPermissions(path, mode)
        // A full backlog makes connect() fail at once for a person's isletctl: take the most
        // the kernel allows (net.core.somaxconn).
        do { try fd.listen() } catch { throw SystemError("listen \(path)", error.errno) }
        listener = fd
        listenFD = fd.raw
    }

    /// Whether a daemon answers on `path` (a connect succeeds).
    static func answers(_ path: String) -> Bool { UnixSocket.answers(path) }

    func shutdown() {
        for c in clients.values { c.socket.close() }
        clients.removeAll()
        listener.close()
        try? FileSystem.remove(path)
    }

    /// Accepts every pending connection.
    /// What one round of accepting brought: the new clients, who was turned away or evicted
    /// (for the log), and whether accept failed for want of descriptors.
    struct Accepted {
        var clients: [ClientConnection] = []
        var refused = 0
        var evicted: [(id: Int, why: String)] = []
        /// EMFILE or ENFILE: the listening socket stays readable; stop polling it for a while.
        var outOfDescriptors: SystemError?
    }

    func acceptAll() -> Accepted {
        var out = Accepted()
        while true {
            let socket: FileDescriptor
            do {
                guard let s = try listener.accept() else { break }
                socket = s
            } catch {
                if error.errno == .tooManyOpenFiles || error.errno == .tooManyOpenFilesInSystem { out.outOfDescriptors = error }
                // Any other error (ECONNABORTED) ends this turn's accepting, as nothing pending does.
                break
            }
            let c = ClientConnection(socket: socket, id: nextID, nowMs: nowMs())
            nextID += 1
            if clients.count >= Self.maximumClients, let (victim, why) = evictionCandidate() {
                evict(victim, because: "the daemon is full and this connection \(why); it is closed to make room")
                out.evicted.append((victim.id, why))
            }
            if clients.count >= Self.maximumClients {
                c.queue(JSONLines.encode(ControlResponse.failure(ProtocolError("too_many_clients", "the daemon serves at most \(Self.maximumClients) clients at once"))))
                _ = try? socket.sendSome(c.output[...])
                socket.close()
                out.refused += 1
                continue
            }
            clients[c.fd] = c
            out.clients.append(c)
        }
        return out
    }

    /// Out of descriptors: the client that has been idle longest (not watching) gives its
    /// descriptor back, so the next connection (a person's `isletctl status`) can be accepted.
    func evictLongestIdle() -> ClientConnection? {
        guard let victim = clients.values.filter({ !$0.watching && $0.awaiting.isEmpty })
            .min(by: { $0.lastActiveMs != $1.lastActiveMs ? $0.lastActiveMs < $1.lastActiveMs : $0.id < $1.id }) else { return nil }
        evict(victim, because: "the daemon is out of file descriptors and this connection was the longest idle; it is closed to make room")
        return victim
    }

    private func evict(_ victim: ClientConnection, because message: String) {
        victim.output = []; victim.outputOffset = 0
        victim.queue(JSONLines.encode(ControlResponse.failure(ProtocolError("too_many_clients", message))))
        _ = try? victim.socket.sendSome(victim.output[victim.outputOffset...])
        drop(victim)
    }

    /// Who gives up a place when the daemon is full, so a person's `isletctl status` always gets
    /// in: a requester silent for a second, else the one with the oldest unfinished line (a
    /// trickler), else the watcher that has read least recently (a stuck one). Clients actively
    /// exchanging requests and answers are never evicted.
    private func evictionCandidate() -> (ClientConnection, String)? {
        let now = nowMs()
        if let idle = clients.values.filter({ !$0.watching && $0.partialSinceMs == nil && now - $0.lastActiveMs >= Self.idleEvictionMs })
            .min(by: { $0.lastActiveMs < $1.lastActiveMs }) {
            return (idle, "was idle")
        }
        if let slow = clients.values.filter({ $0.partialSinceMs.map { now - $0 >= Self.idleEvictionMs } ?? false })
            .min(by: { ($0.partialSinceMs ?? 0) < ($1.partialSinceMs ?? 0) }) {
            return (slow, "had not finished its request")
        }
        // A watcher's unread backlog: our buffer plus what waits in the socket for it to read
        // (TIOCOUTQ). One that reads has none; a stuck one at least its snapshot.
        func backlog(_ c: ClientConnection) -> Int { c.pendingOutput + (c.socket.unreadOutput() ?? 0) }
        if let stale = clients.values.filter({ $0.watching }).map({ ($0, backlog($0)) }).filter({ $0.1 > 0 })
            .max(by: { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.id > $1.0.id }) {
            return (stale.0, "was watching without reading")
        }
        return nil
    }

    /// Clients whose unfinished line is older than `lineTimeoutMs`, and the next instant
    /// (CLOCK_BOOTTIME ms) one would become so.
    func overdue() -> (late: [ClientConnection], next: Int64?) {
        let now = nowMs()
        var late: [ClientConnection] = []
        var next: Int64?
        for c in clients.values {
            guard let since = c.partialSinceMs, !c.closing else { continue }
            let due = since + Self.lineTimeoutMs
            if due <= now { late.append(c) } else { next = min(next ?? due, due) }
        }
        return (late, next)
    }

    enum ReadOutcome { case lines([[UInt8]]), tooLong([[UInt8]]), closed([[UInt8]]) }

    /// Reads what the client sent (when `readable`) and takes at most `limit` complete lines;
    /// the rest waits in its buffer for the next turn.
    func readLines(_ c: ClientConnection, readable: Bool = true, limit: Int = linesPerTurn) -> ReadOutcome {
        var eof = false
        while readable {
            let received: [UInt8]?
            // An error ends the connection, as the peer's close does; nil is "nothing now".
            do { received = try c.socket.receive(capacity: 16 * 1024) } catch { eof = true; break }
            guard let got = received else { break }
            if got.isEmpty { eof = true; break }
            c.input += got
            c.lastActiveMs = nowMs()
            if c.input.count > ControlRequest.maximumLineBytes * 2 { break }
        }
        var lines: [[UInt8]] = []
        while lines.count < limit, let nl = c.input.firstIndex(of: 10) {
            let line = Array(c.input[..<nl])
            c.input.removeSubrange(...nl)
            // The limit is on the request itself; a CRLF line end does not count against it.
            let trimmed = line.last == 13 ? Array(line.dropLast()) : line
            if trimmed.count > ControlRequest.maximumLineBytes { return .tooLong(lines) }
            if !trimmed.allSatisfy({ $0 == 32 || $0 == 9 }) { lines.append(trimmed) }
        }
        // An unfinished line past the limit will never be answered (a pending CR may still be
        // the start of its CRLF).
        if !c.input.contains(10) {
            let pending = c.input.last == 13 ? c.input.count - 1 : c.input.count
            if pending > ControlRequest.maximumLineBytes { return .tooLong(lines) }
            if c.input.isEmpty { c.partialSinceMs = nil } else if c.partialSinceMs == nil { c.partialSinceMs = nowMs() }
        } else {
            c.partialSinceMs = nil
        }
        return eof ? .closed(lines) : .lines(lines)
    }

    /// Writes what the socket takes now. Returns false when the client must be dropped.
    func flush(_ c: ClientConnection) -> Bool {
        while c.pendingOutput > 0 {
            do {
                let n = try c.socket.sendSome(c.output[c.outputOffset...])
                if n == 0 { break }
                c.outputOffset += n
                c.lastDrainedMs = nowMs()
            } catch {
                return false
            }
        }
        if c.pendingOutput == 0 {
            c.output.removeAll(keepingCapacity: c.output.count < 65536)
            c.outputOffset = 0
            // A client that is done sending still gets the answers that wait for the disk.
            if c.closing && c.awaiting.isEmpty { return false }
        }
        return c.pendingOutput <= Self.maximumPendingOutput
    }

    func drop(_ c: ClientConnection) {
        c.socket.close()
        clients[c.fd] = nil
    }
}
