import IsletSystem
import IsletProtocol
import IsletCore

/// What the daemon does for the clients part: answer one request line, and cancel the starts
/// of a client that left before they were saved.
protocol ClientsDelegate: AnyObject {
    func answer(_ line: [UInt8], from client: ClientConnection) -> Clients.Reply
    func clientLeft(withStarts tickets: [StartTicket])
}

/// The control socket's clients: the server and each connection's descriptor in the loop,
/// fairness per turn (a client gets one turn of `linesPerTurn` requests), backpressure, the
/// request timeout, the watchers' stream, and answers held until their change is durable.
final class Clients {
    /// What a request gets: an answer now, or one once the write of its change is done.
    enum Reply {
        case now(ControlResponse)
        case afterWrite(generation: UInt64, StartTicket?)
    }

    private let ctx: DaemonContext
    private unowned let loop: EventLoop
    let server: ControlServer
    /// Clients whose requests were read in this turn of the loop (each gets one turn).
    private var servedThisTurn: Set<Int32> = []
    /// Out of descriptors: the listening socket is not polled until then (it stays readable, and
    /// polling it would spin the loop).
    private var acceptPausedUntil: MonotonicInstant?
    /// Since when accept has failed for want of descriptors (one log line per episode).
    private var outOfDescriptorsSince: MonotonicInstant?
    static let acceptPauseMs: Int64 = 200
    weak var delegate: (any ClientsDelegate)?

    init(_ ctx: DaemonContext, loop: EventLoop, socket: String) throws(DaemonStartError) {
        self.ctx = ctx
        self.loop = loop
        let loopClock = ctx.loopClock
        do {
            server = try ControlServer(path: socket, mode: ctx.config.socketMode, group: ctx.config.socketGroup,
                                       nowMs: { loopClock.bootMilliseconds() })
        } catch { throw DaemonStartError("cannot serve the control socket: \(error)", status: 69) }
    }

    func attach() throws(SystemError) {
        try loop.register(server.listenFD) { [unowned self] _ in acceptAll() }
    }

    var count: Int { server.clients.count }
    /// A request left in a buffer from an earlier turn: the loop must not sleep.
    var hasBufferedRequest: Bool { server.clients.values.contains { $0.hasBufferedLine } }

    private func acceptAll() {
        let round = server.acceptAll()
        let mono = ctx.mono
        for c in round.clients {
            ctx.log.debug("client \(c.id) connected")
            do { try loop.register(c.fd) { [unowned self] r in ready(c, r) } }
            catch { ctx.log.warning("cannot watch client \(c.id): \(error)"); server.drop(c) }
        }
        for e in round.evicted {
            ctx.log.limited(.notice, topic: "client-evicted", nowMs: mono.milliseconds,
                            "client \(e.id) evicted: the daemon is full (\(ControlServer.maximumClients) clients) and it \(e.why)")
        }
        if round.refused > 0 {
            ctx.log.limited(.notice, topic: "client-refused", nowMs: mono.milliseconds,
                            "refused \(round.refused) connection(s): the daemon is full (\(ControlServer.maximumClients) clients, none idle)")
        }
        if let error = round.outOfDescriptors {
            outOfDescriptors(error, mono: mono)
        } else if !round.clients.isEmpty, let since = outOfDescriptorsSince {
            outOfDescriptorsSince = nil
            ctx.log.notice("accepting clients again (out of file descriptors for \(mono.nanoseconds(since: since) / 1_000_000) ms)")
        }
    }

    /// accept failed with EMFILE/ENFILE: the longest-idle client gives its descriptor back,
    /// and the listening socket rests for a moment instead of being polled in a tight loop.
    private func outOfDescriptors(_ error: SystemError, mono: MonotonicInstant) {
        let evicted = server.evictLongestIdle()
        if let evicted { loop.unregister(evicted.fd) }
        if outOfDescriptorsSince == nil {
            outOfDescriptorsSince = mono
            ctx.log.error("cannot accept clients: \(error) (the process's descriptor limit, LimitNOFILE, is reached); "
                          + (evicted.map { "evicted the longest-idle client \($0.id); " } ?? "no idle client to evict; ")
                          + "pausing accept for \(Self.acceptPauseMs) ms at a time until descriptors are free")
        }
        acceptPausedUntil = mono.adding(milliseconds: Self.acceptPauseMs)
        loop.watch(server.listenFD, readable: false, writable: false)
    }

    private func ready(_ c: ClientConnection, _ ready: Epoll.Ready) {
        guard server.clients[c.fd] === c else { return }
        // Gone altogether (not merely done sending): its starts still in flight are cancelled.
        if ready.hungUp { cancelStarts(of: c) }
        if ready.readable || c.hasBufferedLine {
            servedThisTurn.insert(c.fd)
            service(c, readable: ready.readable)
        }
        guard server.clients[c.fd] === c else { return }
        if c.pendingOutput > 0 || ready.hungUp, !server.flush(c) {
            if c.pendingOutput > ControlServer.maximumPendingOutput {
                ctx.log.notice("client \(c.id) does not read its answers; dropped")
            }
            drop(c)
        }
    }

    /// One turn's work after the handlers: requests left over from a client's last turn (for
    /// clients not served in this one), then the request lines that took too long.
    func afterEvents() {
        if let until = acceptPausedUntil, ctx.mono >= until {
            acceptPausedUntil = nil
            loop.watch(server.listenFD, readable: true, writable: false)
        }
        for c in Array(server.clients.values) where c.hasBufferedLine && !servedThisTurn.contains(c.fd) {
            service(c, readable: false)
            if server.clients[c.fd] === c, c.pendingOutput > 0, !server.flush(c) { drop(c) }
        }
        servedThisTurn = []
        dropOverdue()
    }

    /// The descriptors' interests follow each client's state: a throttled or closing client is
    /// not read (backpressure), one with output waiting is watched for room.
    func updateInterests() {
        for c in server.clients.values {
            loop.watch(c.fd, readable: !c.closing && !c.throttled, writable: c.pendingOutput > 0)
        }
    }

    /// When an unfinished request line times out, or accepting resumes.
    var nextDeadline: MonotonicInstant? {
        let line = server.overdue().next.map { ctx.loopClock.monotonic(atBootNanoseconds: $0 * 1_000_000) }
        guard let paused = acceptPausedUntil else { return line }
        return line.map { min($0, paused) } ?? paused
    }

    /// A request line must be finished within ControlServer.lineTimeoutMs of its first byte.
    private func dropOverdue() {
        for c in server.overdue().late {
            c.queue(JSONLines.encode(ControlResponse.failure(ProtocolError("request_timeout",
                "a request line must be finished within \(ControlServer.lineTimeoutMs / 1000) s of its first byte; the connection is closed"))))
            c.closing = true
            c.input = []
            c.partialSinceMs = nil
            if !server.flush(c) { drop(c) }
        }
    }

    private func service(_ c: ClientConnection, readable: Bool) {
        switch server.readLines(c, readable: readable) {
        case .lines(let lines):
            for l in lines { answer(l, c) }
        case .tooLong(let lines):
            for l in lines { answer(l, c) }
            deliver(JSONLines.encode(ControlResponse.failure(ProtocolError("line_too_long",
                "a request line is limited to \(ControlRequest.maximumLineBytes) bytes; the connection is closed"))), to: c)
            c.closing = true
            c.input = []
        case .closed(let lines):
            // The client is done sending: answer what it sent, then close once that is out.
            for l in lines { answer(l, c) }
            c.closing = true
            c.input = []
            if !server.flush(c) { drop(c) }
        }
    }

    private func answer(_ line: [UInt8], _ c: ClientConnection) {
        guard let reply = delegate?.answer(line, from: c) else { return }
        // The id goes back with the answer, also when the request did not parse.
        let id = line.contains(0x5F) ? ControlRequest.requestID(in: line) : nil
        switch reply {
        case .now(var r):
            r.requestID = id
            deliver(JSONLines.encode(r), to: c)
        case .afterWrite(let generation, let ticket):
            c.awaiting.append(DeferredAnswer(generation: generation, ticket: ticket, line: nil, requestID: id))
        }
    }

    /// An answer goes out now, or behind the answers this client already waits for.
    private func deliver(_ line: [UInt8], to c: ClientConnection) {
        if c.awaiting.isEmpty { c.queue(line) } else { c.awaiting.append(DeferredAnswer(generation: 0, ticket: nil, line: line)) }
    }

    /// Sends every held answer whose write is done, in each client's request order; `answer`
    /// makes the answer of a change (its start's outcome, or the state now).
    func releaseAnswers(durable: UInt64, _ answer: (StartTicket?) -> ControlResponse) {
        for c in Array(server.clients.values) where !c.awaiting.isEmpty {
            while let first = c.awaiting.first, first.line != nil || first.generation <= durable {
                c.awaiting.removeFirst()
                if let line = first.line { c.queue(line); continue }
                var r = answer(first.ticket)
                r.requestID = first.requestID
                c.queue(JSONLines.encode(r))
            }
            if !server.flush(c) { drop(c) }
        }
    }

    /// A change, to every watcher (one that does not read its stream is dropped).
    func broadcast(_ response: ControlResponse) {
        let line = JSONLines.encode(response)
        for c in Array(server.clients.values) where c.watching && !c.closing {
            deliver(line, to: c)
            if !server.flush(c) {
                ctx.log.notice("client \(c.id) does not read its watch stream; dropped")
                drop(c)
            }
        }
    }

    private func cancelStarts(of c: ClientConnection) {
        let tickets = c.awaiting.compactMap(\.ticket)
        if !tickets.isEmpty { delegate?.clientLeft(withStarts: tickets) }
    }

    private func drop(_ c: ClientConnection) {
        ctx.log.debug("client \(c.id) left")
        cancelStarts(of: c)
        loop.unregister(c.fd)
        server.drop(c)
    }

    /// At shutdown: what is queued goes out, then the socket closes.
    func shutdown() {
        for c in server.clients.values where c.pendingOutput > 0 { _ = server.flush(c) }
        server.shutdown()
    }
}
