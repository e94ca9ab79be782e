import IsletParts
import IsletClock
import IsletConfig
import IsletSystem
import IsletProtocol
import IsletCore

/// The control socket's clients: the server and each connection's descriptor in the loop,
/// fairness per turn (a client gets one turn of `linesPerTurn` requests), backpressure, the
/// request timeout, the watchers' stream, and answers held until their change is durable.
final class Clients: DaemonPart {
    private let env: PartEnvironment
    private weak var loop: EventLoop?
    private weak var inbox: (any Inbox)?
    let server: ControlServer
    /// Clients whose requests were read in this turn of the loop (each gets one turn).
    private var servedThisTurn: Set<Int32> = []
    /// Each client's lines in this turn: ControlServer.share of the clients that still had
    /// lines waiting at the end of the last turn.
    private var share = ControlServer.linesPerTurn
    /// Out of descriptors: the listening socket is not polled until then (it stays readable, and
    /// polling it would spin the loop).
    private var acceptPausedUntil: MonotonicInstant?
    /// Since when accept has failed for want of descriptors (one log line per episode).
    private var outOfDescriptorsSince: MonotonicInstant?
    static let acceptPauseMs: Int64 = 200

    init(_ env: PartEnvironment, config: DaemonConfig, socket: String) throws(DaemonStartError) {
        self.env = env
        let loopClock = env.loopClock
        do {
            server = try ControlServer(path: socket, mode: config.socketMode, group: config.socketGroup,
                                       nowMs: { loopClock.bootMilliseconds() })
        } catch { throw DaemonStartError("cannot serve the control socket: \(error)", status: 69) }
    }

    func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {
        self.loop = loop
        self.inbox = inbox
        try loop.register(Descriptor(server.listenFD)) { [unowned self] _ in acceptAll() }
    }

    func report(into status: inout DaemonStatus, _ turn: TurnView) { status.set("clients", server.clients.count) }

    /// A request left in a buffer from an earlier turn: the loop must not sleep.
    var hasBacklog: Bool { server.clients.values.contains { $0.hasBufferedLine } }

    private func acceptAll() {
        let round = server.acceptAll()
        let mono = env.mono
        for c in round.clients {
            env.log.debug("client \(c.id) connected")
            do { try loop?.register(c.descriptor) { [unowned self] r in ready(c, r) } }
            catch { env.log.warning("cannot watch client \(c.id): \(error)"); server.drop(c) }
        }
        for e in round.evicted {
            env.log.limited(.notice, topic: "client-evicted", nowMs: mono.milliseconds,
                            "client \(e.id) evicted: the daemon is full (\(ControlServer.maximumClients) clients) and it \(e.why)")
        }
        if round.refused > 0 {
            env.log.limited(.notice, topic: "client-refused", nowMs: mono.milliseconds,
                            "refused \(round.refused) connection(s): the daemon is full (\(ControlServer.maximumClients) clients, none idle)")
        }
        if let error = round.outOfDescriptors {
            outOfDescriptors(error, mono: mono)
        } else if !round.clients.isEmpty, let since = outOfDescriptorsSince {
            outOfDescriptorsSince = nil
            env.log.notice("accepting clients again (out of file descriptors for \(mono.nanoseconds(since: since) / 1_000_000) ms)")
        }
    }

    /// accept failed with EMFILE/ENFILE: the longest-idle client gives its descriptor back,
    /// and the listening socket rests for a moment instead of being polled in a tight loop.
    private func outOfDescriptors(_ error: SystemError, mono: MonotonicInstant) {
        let evicted = server.evictLongestIdle()
        if let evicted { loop?.unregister(evicted.descriptor) }
        if outOfDescriptorsSince == nil {
            outOfDescriptorsSince = mono
            env.log.error("cannot accept clients: \(error) (the process's descriptor limit, LimitNOFILE, is reached); "
                          + (evicted.map { "evicted the longest-idle client \($0.id); " } ?? "no idle client to evict; ")
                          + "pausing accept for \(Self.acceptPauseMs) ms at a time until descriptors are free")
        }
        acceptPausedUntil = mono.adding(milliseconds: Self.acceptPauseMs)
        loop?.watch(Descriptor(server.listenFD), readable: false, writable: false)
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
                env.log.notice("client \(c.id) does not read its answers; dropped")
            }
            drop(c)
        }
    }

    /// One turn's work after the handlers: requests left over from a client's last turn (for
    /// clients not served in this one), then the request lines that took too long.
    func afterEvents(_ turn: TurnView) {
        if let until = acceptPausedUntil, turn.mono >= until {
            acceptPausedUntil = nil
            loop?.watch(Descriptor(server.listenFD), readable: true, writable: false)
        }
        for c in Array(server.clients.values) where c.hasBufferedLine && !servedThisTurn.contains(c.fd) {
            service(c, readable: false)
            if server.clients[c.fd] === c, c.pendingOutput > 0, !server.flush(c) { drop(c) }
        }
        servedThisTurn = []
        share = ControlServer.share(busy: server.clients.values.count { $0.hasBufferedLine })
        dropOverdue()
    }

    /// The descriptors' interests follow each client's state: a throttled or closing client is
    /// not read (backpressure), one with output waiting is watched for room.
    func prepareToWait() {
        for c in server.clients.values {
            loop?.watch(c.descriptor, readable: !c.closing && !c.throttled, writable: c.pendingOutput > 0)
        }
    }

    /// When an unfinished request line times out, or accepting resumes.
    var nextDeadline: MonotonicInstant? {
        let line = server.overdue().next.map { env.loopClock.monotonic(atBootNanoseconds: $0 * 1_000_000) }
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
        switch server.readLines(c, readable: readable, limit: share) {
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

    /// One line, parsed once: the id goes back with the answer, also when the request did not parse.
    private func answer(_ line: [UInt8], _ c: ClientConnection) {
        let read = ControlRequest.read(line)
        let reply: Reply
        switch read.request {
        case .failure(let e): reply = .now(.failure(e))
        case .success(let req):
            guard let inbox else { return }
            if req.op == .watch { c.watching = true }
            reply = inbox.request(req)
        }
        switch reply {
        case .now(var r):
            r.requestID = read.requestID
            deliver(JSONLines.encode(r), to: c)
        case .later(let pending):
            c.awaiting.append(DeferredAnswer(pending: pending, line: nil, requestID: read.requestID))
        }
    }

    /// An answer goes out now, or behind the answers this client already waits for.
    private func deliver(_ line: [UInt8], to c: ClientConnection) {
        if c.awaiting.isEmpty { c.queue(line) } else { c.awaiting.append(DeferredAnswer(pending: PendingAnswer(), line: line)) }
    }

    /// Sends every held answer whose write is done, in each client's request order; no more
    /// than the throttle's worth of output at once (one write can release thousands of
    /// answers): the rest go as the client reads, at the turns its socket takes output.
    func releaseAnswers(_ answers: Answers) {
        for c in Array(server.clients.values) where !c.awaiting.isEmpty {
            var alive = true
            while let first = c.awaiting.first, first.line != nil || answers.ready(first.pending) {
                if c.pendingOutput > ControlServer.throttleOutputBytes {
                    guard server.flush(c) else { alive = false; break }
                    // The socket takes no more now: the rest go once it is writable again.
                    if c.pendingOutput > ControlServer.throttleOutputBytes { break }
                }
                c.awaiting.removeFirst()
                if let line = first.line { c.queue(line); continue }
                var r = answers.make(first.pending)
                r.requestID = first.requestID
                c.queue(JSONLines.encode(r))
            }
            if !alive || !server.flush(c) { drop(c) }
        }
    }

    /// The turn's change, to every watcher (one that does not read its stream is dropped).
    func publish(_ outcome: TurnOutcome) {
        guard let response = outcome.change else { return }
        let line = JSONLines.encode(response)
        for c in Array(server.clients.values) where c.watching && !c.closing {
            deliver(line, to: c)
            if !server.flush(c) {
                env.log.notice("client \(c.id) does not read its watch stream; dropped")
                drop(c)
            }
        }
    }

    private func cancelStarts(of c: ClientConnection) {
        let tickets = c.awaiting.compactMap(\.pending.ticket)
        if !tickets.isEmpty { inbox?.post(.abandoned(tickets)) }
    }

    private func drop(_ c: ClientConnection) {
        env.log.debug("client \(c.id) left")
        cancelStarts(of: c)
        loop?.unregister(c.descriptor)
        server.drop(c)
    }

    /// At shutdown: what is queued goes out, then the socket closes.
    func shutdown(_ turn: TurnView) {
        for c in server.clients.values where c.pendingOutput > 0 { _ = server.flush(c) }
        server.shutdown()
    }
}
