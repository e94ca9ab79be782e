import IsletSystem
import IsletMQTT
import IsletCore

/// What the link tells the bridge.
protocol MQTTLinkOwner: AnyObject {
    func linkConnected()
    func linkLost()
    func linkReceived(topic: String, payload: [UInt8], retained: Bool, correlation: [UInt8]?)
    /// The broker granted a subscription (its SUBACK came).
    func linkSubscribed(_ filter: String)
}

/// The bridge's connection to its broker: attempts on the connector's thread, the session's
/// socket in the loop's table, libmosquitto's read, write and keep-alive steps when due,
/// backoff with jitter, and what `status` reports. It knows no topic but to name a refusal.
final class MQTTLink {
    enum State: Equatable {
        case connecting
        case connected
        case refused(String)
    }
    /// What `status` says: the state, since when, the last error, attempts since the last success.
    struct Report {
        var state = State.connecting
        var since: Instant
        var lastError: String?
        var attempts = 0
    }

    private let ctx: DaemonContext
    private unowned let loop: EventLoop
    private let plan: MQTTPlan
    private let connector: MQTTConnector
    /// The session with a socket in the table (awaiting CONNACK, or connected).
    private var session: MQTTSession?
    private var fd: Int32 = -1
    private(set) var report: Report
    private var backoff = Backoff(initialMs: 1000, maximumMs: 60_000)
    /// The attempt under way on the connector's thread must finish by then.
    private var attemptDeadline: MonotonicInstant?
    /// libmosquitto's keep-alive step is due `keepalive` after the last packet sent.
    private var lastSent: MonotonicInstant
    /// Topic of each SUBSCRIBE and QoS 1 publish not acknowledged yet, to name a refusal.
    private var inFlight: [Int32: String] = [:]
    /// Publishes, and the bytes of topic and payload they carried (for `make bench`).
    private(set) var traffic = (publishes: 0, bytes: 0)
    weak var owner: (any MQTTLinkOwner)?

    static let attemptTimeoutMs: Int64 = 30_000

    init(_ ctx: DaemonContext, loop: EventLoop, plan: MQTTPlan) throws(DaemonStartError) {
        self.ctx = ctx
        self.loop = loop
        self.plan = plan
        do { connector = try MQTTConnector() }
        catch { throw DaemonStartError("mqtt: \(error)", status: 71) }
        report = Report(since: ctx.clock.now())
        lastSent = ctx.mono
    }

    /// Connected (perhaps with a topic refused: what is allowed still works).
    var isUp: Bool { session != nil && report.state != .connecting }

    func attach() throws(SystemError) {
        try loop.register(connector.done.fd.raw) { [unowned self] _ in takeAttempt() }
        ctx.log.info("mqtt: connecting to \(plan.url) as \(plan.clientID), topics \(plan.topics.prefix)/…")
        beginAttempt()
    }

    // MARK: connecting

    private func beginAttempt() {
        // Too many abandoned attempts still blocked in the kernel: wait a while for one to end.
        guard connector.canBegin else {
            backoff.retry(at: ctx.mono.adding(milliseconds: 5000))
            return
        }
        report.attempts += 1
        do {
            let s = try MQTTSession(plan.options)
            try connector.begin(s)
            attemptDeadline = ctx.mono.adding(milliseconds: Self.attemptTimeoutMs)
            backoff.waitForCompletion()
        } catch {
            failed("\(error)")
        }
    }

    private func takeAttempt() {
        guard let (s, error) = connector.take() else { return }
        attemptDeadline = nil
        if let error { failed(error.message); return }
        let socket = s.socket
        do { try loop.register(socket, readable: true, writable: s.wantsWrite) { [unowned self] r in ready(r) } }
        catch { failed("cannot watch the broker's socket: \(error)"); return }
        session = s
        fd = socket
        lastSent = ctx.mono
        // CONNACK comes as a read; until then the state stays "connecting".
    }

    /// An attempt or the connection failed: wait for the next try, with jitter so a house of
    /// displays does not reconnect in step after the broker restarts. One log line per change.
    private func failed(_ why: String, refusal: String? = nil) {
        let wasUp = session != nil && report.state == .connected
        closeSession()
        let mono = ctx.mono
        let next: State = refusal.map { .refused($0) } ?? (report.state == .connected ? .connecting : report.state)
        if next != report.state || report.lastError == nil {
            switch next {
            case .refused(let r): ctx.log.error("mqtt: \(plan.url) refused the connection: \(r)")
            case .connecting, .connected: ctx.log.warning("mqtt: \(why); connecting again with backoff")
            }
            if next != report.state { report.since = ctx.clock.now() }
        } else {
            ctx.log.debug("mqtt: attempt \(report.attempts) failed: \(why)")
        }
        report.state = next
        report.lastError = why
        backoff.failed(at: mono)
        if let at = backoff.retryAt {
            let wait = at.nanoseconds(since: mono) / 1_000_000
            let spread = Int64(wait) / 4
            backoff.retry(at: mono.adding(milliseconds: Int64(wait) + Int64.random(in: -spread...spread)))
        }
        if wasUp { owner?.linkLost() }
    }

    private func closeSession() {
        if fd >= 0 { loop.unregister(fd) }
        fd = -1
        session = nil
        inFlight = [:]
    }

    // MARK: the loop's calls

    private func ready(_ r: Epoll.Ready) {
        guard let s = session else { return }
        run(s) {
            var error: MQTTError?
            if r.readable || r.hungUp { error = s.read() }
            if error == nil, r.writable { error = s.write() }
            return error
        }
    }

    /// One libmosquitto step, then what it reported. A failed step ends the connection; its
    /// error says more than the disconnect callback's code, so it wins.
    private func run(_ s: MQTTSession, _ body: () -> MQTTError?) {
        let error = body()
        let goodbye = handleEvents(s)
        guard session === s else { return }
        if let error { failed("lost the connection to \(plan.url): \(error.message)") }
        else if let goodbye { failed("lost the connection to \(plan.url): \(goodbye)") }
        else { updateInterest() }
    }

    /// The attempt that took too long, the next try, the keep-alive.
    func afterEvents() {
        let mono = ctx.mono
        if let deadline = attemptDeadline, mono >= deadline {
            attemptDeadline = nil
            connector.abandon()
            failed("no connection within \(Self.attemptTimeoutMs / 1000) s (the broker's address does not answer, or its name does not resolve)")
        }
        if session == nil, attemptDeadline == nil, backoff.isDue(mono) { beginAttempt() }
        if let s = session, mono >= keepaliveDue {
            lastSent = mono
            run(s) { s.misc() }
        }
    }

    private var keepaliveDue: MonotonicInstant { lastSent.adding(milliseconds: Int64(plan.settings.keepaliveSeconds) * 1000) }

    var nextDeadline: MonotonicInstant? {
        if session != nil { return keepaliveDue }
        return attemptDeadline ?? backoff.retryAt
    }

    private func updateInterest() {
        guard let s = session, fd >= 0 else { return }
        loop.watch(fd, readable: true, writable: s.wantsWrite)
    }

    // MARK: what the broker says

    /// Hands messages to the owner; returns why the broker ended the connection, if it did.
    private func handleEvents(_ s: MQTTSession) -> String? {
        var goodbye: String?
        for e in s.takeEvents() {
            guard session === s else { return nil }
            switch e {
            case .connected(let rc, let reason):
                if rc == 0 { connected() } else { failed("CONNACK \(rc): \(reason)", refusal: reason) }
            case .disconnected(let rc):
                if rc != 0 { goodbye = "the broker closed the connection (code \(rc))" }
            case .message(let topic, let payload, let retained, let correlation):
                owner?.linkReceived(topic: topic, payload: payload, retained: retained, correlation: correlation)
            case .published(let mid, let rc):
                let topic = inFlight.removeValue(forKey: mid) ?? "a topic"
                if rc >= 0x80 { refused("publish to \(topic) refused: \(MQTTSession.reason(rc))") }
            case .subscribed(let mid, let granted):
                let filter = inFlight.removeValue(forKey: mid) ?? "a topic"
                if let g = granted.first(where: { $0 >= 0x80 }) { refused("subscription to \(filter) refused: \(MQTTSession.reason(g))") }
                else { owner?.linkSubscribed(filter) }
            }
        }
        return goodbye
    }

    private func connected() {
        let after = report.lastError
        report.state = .connected
        report.since = ctx.clock.now()
        report.attempts = 0
        report.lastError = nil
        backoff.succeeded()
        ctx.log.notice("mqtt: connected to \(plan.url) as \(plan.clientID)" + (after.map { " (after: \($0))" } ?? ""))
        owner?.linkConnected()
    }

    /// An ACL denial: the connection stays (what is allowed still works); `status` says so.
    private func refused(_ why: String) {
        if report.state != .refused(why) {
            ctx.log.error("mqtt: \(why) (check the broker's ACL for \(plan.topics.prefix)/#)")
            report.state = .refused(why)
            report.since = ctx.clock.now()
        }
        report.lastError = why
    }

    // MARK: sending

    func subscribe(_ filter: String, retainAsPublished: Bool = false) {
        switch session?.subscribe(filter, retainAsPublished: retainAsPublished) {
        case .success(let mid)?: inFlight[mid] = filter
        case .failure(let e)?: ctx.log.warning("mqtt: \(e)")
        case nil: break
        }
    }

    func send(_ topic: String, _ payload: [UInt8], retain: Bool, correlation: [UInt8]? = nil, expirySeconds: UInt32? = nil) {
        guard let s = session else { return }
        switch s.publish(topic, payload, retain: retain, correlation: correlation, expirySeconds: expirySeconds) {
        case .success(let mid):
            // Bounded: a broker that never acknowledges must not grow this without end.
            if inFlight.count < 1024 { inFlight[mid] = topic }
            traffic.publishes += 1
            traffic.bytes += topic.utf8.count + payload.count
            lastSent = ctx.mono
            updateInterest()
        case .failure(let e):
            ctx.log.limited(.warning, topic: "mqtt-publish", nowMs: ctx.mono.milliseconds, "mqtt: \(e)")
        }
    }

    /// Writes what libmosquitto holds queued now, rather than at the socket's next EPOLLOUT: a
    /// sync record must be on the wire before the answer to its change (a kill -9 right after
    /// the answer must not lose it).
    func flush() {
        guard let s = session, isUp else { return }
        for _ in 0..<4 where s.wantsWrite {
            if let e = s.write() { ctx.log.limited(.warning, topic: "mqtt-publish", nowMs: ctx.mono.milliseconds, "mqtt: \(e.message)"); break }
        }
        updateInterest()
    }

    /// A clean stop: `last` goes out (the broker sends the will only for a dead link), then
    /// DISCONNECT.
    func shutdown(last: (topic: String, payload: [UInt8])?) {
        guard let s = session else { return }
        if isUp, let last {
            send(last.topic, last.payload, retain: true)
            for _ in 0..<4 where s.wantsWrite { _ = s.write() }
        }
        s.disconnect()
        closeSession()
    }
}
