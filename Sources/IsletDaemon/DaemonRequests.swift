#if canImport(Glibc)
import Glibc
#endif
import IsletSystem
import IsletProtocol
import IsletCore

/// The clients' side: requests in, answers out, and the one place the activities change
/// (`perform`). An answer to a change waits until the change is durable; the loop serves
/// everyone else meanwhile.
extension Daemon {
    /// What a request gets: an answer now, or one once the write of its change is done.
    enum Reply {
        case now(ControlResponse)
        case afterWrite(StartTicket?)
    }

    /// What `perform` did: whether the activities changed, and the ticket of a start in flight.
    struct Performed {
        var changed: Bool
        var ticket: StartTicket?
    }

    // MARK: the one place the activities change

    /// Applies an intent to the book, then renders and flushes the new frame and tells
    /// watchers. The durable write follows at the end of the loop's turn, off the loop.
    @discardableResult
    func perform(_ intent: Intent, timer: String?, now: Instant) -> Result<Performed, ProtocolError> {
        let before = book.activities
        let outcome: ActivityBook.Outcome
        do { outcome = try book.apply(intent, timer: timer, now: now) }
        catch { return .failure(.from(error)) }
        let change = outcome.change
        var ticket: StartTicket?
        if case .starting(_, let t) = outcome {
            ticket = t
            startsAwaitingWrite.append((submittedGeneration + 1, t))
        }
        let changed = book.activities != before
        if changed { dirty = true }
        if change.transition.effects.contains(.expanded) {
            policy.expandedUntil = now + .seconds(config.expandSeconds)
            policy.expandedTimer = change.timerID
        }
        if change.transition.effects.contains(.started) { markedStale.remove(change.timerID) }
        chimeFor(change.transition, timer: change.timerID)
        log.debug("\(intent.name) on \(change.timerID): now \(change.transition.phase.rawValue)")
        broadcastChange(now: now)
        refreshDisplay(now: clock.now())
        return .success(Performed(changed: changed, ticket: ticket))
    }

    /// Hands the book to the writer if it changed (called once the frame is on the bus).
    func submitIfDirty() {
        guard dirty else { return }
        dirty = false
        submittedGeneration += 1
        writer.submit(book.activities, generation: submittedGeneration)
    }

    /// The writer finished: starts stand or roll back, the store's health is logged, and the
    /// answers that waited are sent.
    func takeWriteCompletions() {
        var rolledBack = false
        for done in writer.takeCompletions() {
            durableGeneration = max(durableGeneration, done.generation)
            noteStore(error: done.error)
            let finished = startsAwaitingWrite.filter { $0.generation <= done.generation }
            startsAwaitingWrite.removeAll { $0.generation <= done.generation }
            for s in finished {
                let end = book.finishStart(s.ticket, saved: done.error == nil)
                finishedStarts[s.ticket] = (end, done.error)
                if end == .rolledBack {
                    rolledBack = true
                    log.warning("the start of timer \"\(s.ticket.timerID)\" could not be saved and was undone: \(done.error ?? "")")
                }
            }
        }
        if rolledBack {
            dirty = true
            let now = clock.now()
            broadcastChange(now: now)
            refreshDisplay(now: now)
        }
        releaseAnswers()
    }

    private func noteStore(error: String?) {
        storeError = error
        let nowMs = loopClock.monotonic().milliseconds
        // A failing state file is logged, not only shown in status (rate-limited: a full disk
        // fails every save), and its recovery once.
        if let error {
            log.limited(.error, topic: "store", nowMs: nowMs,
                        "the state file could not be saved (the timers stay right in memory; the next change retries): \(error)")
            storeFailing = true
        } else if storeFailing {
            storeFailing = false
            log.reset(topic: "store")
            log.notice("the state file is saved again")
        }
    }

    /// Sends every held answer whose write is done, in each client's request order.
    func releaseAnswers() {
        let now = clock.now()
        for c in Array(server.clients.values) where !c.awaiting.isEmpty {
            while let first = c.awaiting.first, first.line != nil || first.generation <= durableGeneration {
                c.awaiting.removeFirst()
                if let line = first.line { c.queue(line); continue }
                var response = snapshot(now: now)
                if let t = first.ticket {
                    switch finishedStarts[t]?.end {
                    case .rolledBack?:
                        response = .failure(ProtocolError("store_failed", "could not save the new activity: \(finishedStarts[t]?.error ?? "unknown error")"))
                    case .notInFlight?:
                        response = .failure(ProtocolError("cancelled", "the start of timer \"\(t.timerID)\" was cancelled"))
                    case .stood?, nil:
                        break
                    }
                }
                c.queue(JSONLines.encode(response))
            }
            if !server.flush(c) { drop(c) }
        }
        // Every start finished so far has been answered (its answer's generation is done).
        finishedStarts = [:]
    }

    // MARK: clients

    func acceptClients() {
        for c in server.acceptAll() {
            log.debug("client \(c.id) connected")
            do { try loop.register(c.fd) { [unowned self] ready in clientReady(c, ready) } }
            catch { log.warning("cannot watch client \(c.id): \(error)"); server.drop(c) }
        }
    }

    func clientReady(_ c: ClientConnection, _ ready: Epoll.Ready) {
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
                log.notice("client \(c.id) does not read its answers; dropped")
            }
            drop(c)
        }
    }

    /// Requests left over from a client's last turn, for clients not served in this one.
    func serveBufferedClients() {
        for c in Array(server.clients.values) where c.hasBufferedLine && !servedThisTurn.contains(c.fd) {
            service(c, readable: false)
            if server.clients[c.fd] === c, c.pendingOutput > 0, !server.flush(c) { drop(c) }
        }
        servedThisTurn = []
    }

    /// The descriptors' interests follow each client's state: a throttled or closing client is
    /// not read (backpressure), one with output waiting is watched for room.
    func updateClientInterests() {
        for c in server.clients.values {
            loop.watch(c.fd, readable: !c.closing && !c.throttled, writable: c.pendingOutput > 0)
        }
    }

    private func cancelStarts(of c: ClientConnection) {
        for t in c.awaiting.compactMap(\.ticket) where book.cancelStart(t.timerID) != nil {
            log.info("the start of timer \"\(t.timerID)\" was cancelled: its client left before it was saved")
            dirty = true
            let now = clock.now()
            broadcastChange(now: now)
            refreshDisplay(now: now)
        }
    }

    /// A request line must be finished within ControlServer.lineTimeoutMs of its first byte.
    func dropOverdueClients() {
        for c in server.overdue().late {
            c.queue(JSONLines.encode(ControlResponse.failure(ProtocolError("request_timeout",
                "a request line must be finished within \(ControlServer.lineTimeoutMs / 1000) s of its first byte; the connection is closed"))))
            c.closing = true
            c.input = []
            c.partialSinceMs = nil
            if !server.flush(c) { drop(c) }
        }
    }

    func service(_ c: ClientConnection, readable: Bool = true) {
        switch server.readLines(c, readable: readable) {
        case .lines(let lines):
            for l in lines { answer(l, to: c) }
        case .tooLong(let lines):
            for l in lines { answer(l, to: c) }
            deliver(JSONLines.encode(ControlResponse.failure(ProtocolError("line_too_long",
                "a request line is limited to \(ControlRequest.maximumLineBytes) bytes; the connection is closed"))), to: c)
            c.closing = true
            c.input = []
        case .closed(let lines):
            // The client is done sending: answer what it sent, then close once that is out.
            for l in lines { answer(l, to: c) }
            c.closing = true
            c.input = []
            if !server.flush(c) { drop(c) }
        }
    }

    func drop(_ c: ClientConnection) {
        log.debug("client \(c.id) left")
        cancelStarts(of: c)
        loop.unregister(c.fd)
        server.drop(c)
    }

    private func deliver(_ line: [UInt8], to c: ClientConnection) {
        if c.awaiting.isEmpty { c.queue(line) } else { c.awaiting.append(DeferredAnswer(generation: 0, ticket: nil, line: line)) }
    }

    private func answer(_ line: [UInt8], to c: ClientConnection) {
        let now = clock.now()
        let reply: Reply
        do {
            let req = try ControlRequest.parse(line)
            reply = try handle(req, client: c, now: now)
        } catch {
            reply = .now(.failure(error))
        }
        switch reply {
        case .now(let r): deliver(JSONLines.encode(r), to: c)
        case .afterWrite(let ticket): c.awaiting.append(DeferredAnswer(generation: submittedGeneration + 1, ticket: ticket, line: nil))
        }
    }

    private func handle(_ req: ControlRequest, client: ClientConnection, now: Instant) throws(ProtocolError) -> Reply {
        func change(_ intent: Intent) throws(ProtocolError) -> Reply {
            let done = try perform(intent, timer: req.timer, now: now).get()
            return done.changed ? .afterWrite(done.ticket) : .now(snapshot(now: clock.now()))
        }
        switch req.op {
        case .status:
            var r = snapshot(now: now)
            // `timer` narrows the answer to that timer (none when it has no activity).
            if let t = req.timer { r.activities = r.activities?.filter { $0.activity.timerID == t } }
            r.status = daemonStatus()
            return .now(r)
        case .watch:
            client.watching = true
            var r = snapshot(now: now)
            r.event = "snapshot"
            return .now(r)
        case .press:
            guard config.buttons == .mock else {
                throw ProtocolError("not_supported", "press works only with mock buttons (isletd --buttons mock)")
            }
            guard let m = mockButtons else { throw ProtocolError("not_supported", "mock buttons are not set up") }
            let edges: (pressNanoseconds: UInt64, releaseNanoseconds: UInt64)
            do { edges = try m.press(button: req.button ?? "", holdMilliseconds: UInt64(req.holdMilliseconds)) }
            catch {
                switch error {
                case .unknownButton: throw ProtocolError("unknown_button", error.description)
                case .timer: throw ProtocolError("internal", error.description)
                }
            }
            var r = snapshot(now: clock.now())
            r.pressMonotonicMicroseconds = edges.pressNanoseconds / 1000
            r.releaseMonotonicMicroseconds = edges.releaseNanoseconds / 1000
            return .now(r)
        case .start:
            return try change(.start(req.start.attributes(timer: req.timer, defaults: config.session)))
        case .toggle:
            var attrs = config.session.attributes
            if let t = req.timer { attrs.timerID = t }
            return try change(.toggle(default: attrs))
        case .pause: return try change(.pause)
        case .resume: return try change(.resume)
        case .reset: return try change(.reset)
        case .expand: return try change(.expand)
        case .end: return try change(.end(req.dismissal.policy(now: now)))
        case .testPattern:
            testPatternUntil = req.patternSeconds == 0 ? nil : loopClock.monotonic().adding(milliseconds: Int64(req.patternSeconds) * 1000)
            log.info(req.patternSeconds == 0 ? "test pattern ended" : "test pattern for \(req.patternSeconds) s")
            broadcastChange(now: now)
            refreshDisplay(now: now)
            return .now(snapshot(now: clock.now()))
        }
    }

    // MARK: what clients and systemd are told

    func snapshot(now: Instant) -> ControlResponse {
        let (presentation, timers) = shown(now: now)
        return ControlResponse(ok: true, event: nil, activities: book.activities.map { ActivityReport(activity: $0, now: now) },
                               presentation: presentation, shownTimers: timers, status: nil, error: nil, now: now)
    }

    func broadcastChange(now: Instant) {
        var r = snapshot(now: now)
        r.event = "change"
        let line = JSONLines.encode(r)
        for c in Array(server.clients.values) where c.watching && !c.closing {
            deliver(line, to: c)
            if !server.flush(c) {
                log.notice("client \(c.id) does not read its watch stream; dropped")
                drop(c)
            }
        }
        let s = statusText()
        if s != lastStatusText { lastStatusText = s; notifier.status(s) }
    }

    func daemonStatus() -> DaemonStatus {
        DaemonStatus(pid: Int(getpid()), version: IsletVersion.string,
                     uptimeSeconds: Double(loopClock.monotonic().nanoseconds(since: startedAt)) / 1e9,
                     wakeups: wakeups, frames: frames, busBytes: busBytes, busErrors: busErrors,
                     panelPresent: panelReady, panelOn: panel.displayIsOn, bus: config.bus.description,
                     size: "\(config.width)x\(config.height)",
                     presentation: presentationName(now: clock.now()),
                     clients: server.clients.count, storeError: storeError,
                     clockBehind: clockBehindUntil != nil,
                     chimePulses: chimeOutput == nil ? nil : chimePulses, panel: panel.visibleImage)
    }

    func statusText() -> String {
        guard let a = book.activities.last else { return "idle" }
        var s = "\(a.timerID) \(a.phase.rawValue)"
        if book.activities.count > 1 { s += " (+\(book.activities.count - 1) more)" }
        if a.content.isStale { s += ", stale" }
        return s
    }
}
