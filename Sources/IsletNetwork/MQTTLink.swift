import IsletClock
import IsletParts
import IsletSystem
import IsletMQTT
import IsletCore
import IsletConfig

/// What the link tells the bridge.
/// A part riding the link (the bridge, the sync group): the connection's events, and the
/// messages on the topics it handles.
package protocol MQTTLinkListener: AnyObject {
    /// Whether a message on this topic is this listener's.
    func handles(_ topic: String) -> Bool
    func linkConnected()
    func linkLost()
    func linkReceived(topic: String, payload: [UInt8], retained: Bool, correlation: [UInt8]?)
    /// The broker granted a subscription (its SUBACK came).
    func linkSubscribed(_ filter: String)
}

extension MQTTLinkListener {
    package func linkSubscribed(_ filter: String) {}
}

/// The bridge's connection to its broker: attempts on the connector's thread, the session's
/// socket in the loop's table, libmosquitto's read, write and keep-alive steps when due,
/// backoff with jitter, and what `status` reports. It knows no topic but to name a refusal.
package final class MQTTLink {
    private let env: PartEnvironment
    private weak var loop: EventLoop?
    private let plan: MQTTPlan
    private let connector: MQTTConnector
    /// The session with a socket in the table (awaiting CONNACK, or connected).
    private var session: MQTTSession?
    private var fd: Descriptor?
    package private(set) var report: Report
    /// When to try again, and when the attempt under way on the connector's thread must finish.
    private var attempt = Attempt()
    /// libmosquitto's keep-alive step is due `keepalive` after the last packet sent.
    private var lastSent: MonotonicInstant
    /// Topic of each SUBSCRIBE and QoS 1 publish not acknowledged yet, to name a refusal.
    private var inFlight: [Int32: String] = [:]
    /// Publishes, and the bytes of topic and payload they carried (for `make bench`).
    package private(set) var traffic = Traffic()
    /// The parts riding the link, in the order they listened (held weakly: they hold the link).
    private var listeners: [Listener] = []
    /// Messages read and not handed to a listener yet: at most `messagesPerTurn` go each turn,
    /// so the frame and the socket's clients are served between them (docs/MQTT.md "Bounds").
    private var waiting = Waiting()
    private var tenure = Tenure()

    /// The whole attempt, resolving and connecting and the broker's CONNACK, ends by then.
    package static let attemptTimeoutMs: Int64 = 30_000
    /// A connection must last this long before a failure starts the backoff from 1 s again:
    /// a broker that accepts and then drops us at once is tried ever more slowly.
    package static let stableAfterMs: Int64 = 60_000
    package static let messagesPerTurn = 16
    /// Past this many waiting, the socket is not read (TCP pushes back to the broker).
    package static let pauseReadingAt = 256
    /// Waiting messages kept at most; more (one read can bring many) are dropped and counted.
    package static let inboxLimit = 2048
    /// MQTT 5 reason code 0x8E: the broker ended this connection because another client
    /// connected with the same client id.
    package static let sessionTakenOver: Int32 = 0x8E

    private struct Listener { weak var part: (any MQTTLinkListener)? }

    package init(_ env: PartEnvironment, plan: MQTTPlan) throws(DaemonStartError) {
        self.env = env
        self.plan = plan
        do { connector = try MQTTConnector() }
        catch { throw DaemonStartError("mqtt: \(error)", status: 71) }
        report = Report(since: env.clock.now())
        lastSent = env.mono
    }

    /// Connected (perhaps with a topic refused: what is allowed still works).
    package var isUp: Bool { session != nil && report.state != .connecting }

    package func listen(_ part: any MQTTLinkListener) { listeners.append(Listener(part: part)) }

    private var parts: [any MQTTLinkListener] { listeners.compactMap(\.part) }

    /// Its descriptor in the table, once: the bridge attaches it (the group rides it).
    package func attach(to loop: EventLoop) throws(SystemError) {
        guard self.loop == nil else { return }
        self.loop = loop
        try loop.register(connector.done.fd.descriptor) { [unowned self] _ in takeAttempt() }
        env.log.info("mqtt: connecting to \(plan.url) as \(plan.clientID), topics \(plan.topics.prefix)/…")
        beginAttempt()
    }

    // MARK: connecting

    private func beginAttempt() {
        // Too many abandoned attempts still blocked in the kernel: wait a while for one to end.
        guard connector.canBegin else {
            attempt.backoff.retry(at: env.mono.adding(milliseconds: 5000))
            return
        }
        report.attempts += 1
        do {
            let s = try MQTTSession(plan.options)
            try connector.begin(s)
            attempt.deadline = env.mono.adding(milliseconds: Self.attemptTimeoutMs)
            attempt.backoff.waitForCompletion()
        } catch {
            failed("\(error)")
        }
    }

    private func takeAttempt() {
        guard let (s, error) = connector.take() else { return }
        // The deadline stays until CONNACK: a broker (or anything else on its port) that
        // accepts the connection and never answers must not hold the link in `connecting`.
        if let error { attempt.deadline = nil; failed(error.message); return }
        let socket = Descriptor(s.socket)
        do { try loop?.register(socket, readable: true, writable: s.wantsWrite) { [unowned self] r in ready(r) } }
        catch { attempt.deadline = nil; failed("cannot watch the broker's socket: \(error)"); return }
        session = s
        fd = socket
        lastSent = env.mono
        // CONNACK comes as a read; until then the state stays "connecting".
    }

    /// An attempt or the connection failed: wait for the next try, with jitter so a house of
    /// displays does not reconnect in step after the broker restarts. One log line per change.
    private func failed(_ why: String, refusal: String? = nil) {
        let wasUp = session != nil && report.state == .connected
        closeSession()
        let mono = env.mono
        let next: State = refusal.map { .refused($0) } ?? (report.state == .connected ? .connecting : report.state)
        if next != report.state || report.lastError == nil {
            switch next {
            case .refused(let r): env.log.error("mqtt: \(plan.url) refused the connection: \(r)")
            case .connecting, .connected: env.log.warning("mqtt: \(why); connecting again with backoff")
            }
            if next != report.state { report.since = env.clock.now() }
        } else {
            env.log.debug("mqtt: attempt \(report.attempts) failed: \(why)")
        }
        report.state = next
        report.lastError = why
        // A connection that lasted resets the backoff; one dropped soon after CONNACK does not,
        // so a broker that refuses us after accepting us is tried ever more slowly.
        if let up = tenure.connectedAt, mono >= up.adding(milliseconds: Self.stableAfterMs) { attempt.backoff.succeeded() }
        tenure.connectedAt = nil
        attempt.backoff.failed(at: mono)
        if let at = attempt.backoff.retryAt {
            let wait = at.nanoseconds(since: mono) / 1_000_000
            let spread = Int64(wait) / 4
            attempt.backoff.retry(at: mono.adding(milliseconds: Int64(wait) + Int64.random(in: -spread...spread)))
        }
        if wasUp { for p in parts { p.linkLost() } }
    }

    private func closeSession() {
        if let fd { loop?.unregister(fd) }
        fd = nil
        session = nil
        inFlight = [:]
        // What a lost connection brought is not acted on: its answers could not go out.
        waiting.clear()
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
        if let error { failed("lost the connection to \(plan.url): \(tenure.brokerGoodbye ?? error.message)") }
        else if let goodbye { failed("lost the connection to \(plan.url): \(goodbye)") }
        else { updateInterest() }
    }

    /// Names a problem the broker will not name for us (another client with our id), in
    /// `status` and the log, until a connection lasts `stableAfterMs`.
    package func name(_ why: String) {
        if tenure.brokerGoodbye != why { env.log.warning("mqtt: \(why)") }
        tenure.brokerGoodbye = why
        report.lastError = why
    }

    /// Topics whose refusal is not the user's problem, and what is lost then (the instance topic,
    /// the pill's image: an ACL written before they existed may not allow them): logged, not reported.
    package var optionalTopics: [String: String] = [:]

    /// Whether messages wait for a later turn (the loop then does not sleep).
    package var hasBacklog: Bool { waiting.count > 0 }

    /// The attempt that took too long, the next try, the keep-alive.
    package func afterEvents() {
        let mono = env.mono
        deliver()
        if let deadline = attempt.deadline, mono >= deadline {
            attempt.deadline = nil
            if session != nil {
                failed("the broker at \(plan.url) took the connection but sent no CONNACK within \(Self.attemptTimeoutMs / 1000) s (is it an MQTT broker, and is mqtts:// needed?)")
            } else {
                connector.abandon()
                failed("no connection within \(Self.attemptTimeoutMs / 1000) s (the broker's address does not answer, or its name does not resolve)")
            }
        }
        if session == nil, attempt.deadline == nil, attempt.backoff.isDue(mono) { beginAttempt() }
        if tenure.brokerGoodbye != nil, let up = tenure.connectedAt, mono >= up.adding(milliseconds: Self.stableAfterMs) {
            tenure.brokerGoodbye = nil
            if report.state == .connected { report.lastError = nil }
        }
        if let s = session, mono >= keepaliveDue {
            lastSent = mono
            run(s) { s.misc() }
        }
    }

    private var keepaliveDue: MonotonicInstant { lastSent.adding(milliseconds: Int64(plan.settings.keepaliveSeconds) * 1000) }

    package var nextDeadline: MonotonicInstant? {
        if session != nil {
            let stable = tenure.brokerGoodbye == nil ? nil : tenure.connectedAt?.adding(milliseconds: Self.stableAfterMs)
            return [keepaliveDue, attempt.deadline, stable].compactMap { $0 }.min()
        }
        return attempt.deadline ?? attempt.backoff.retryAt
    }

    private func updateInterest() {
        guard let s = session, let fd else { return }
        loop?.watch(fd, readable: waiting.count < Self.pauseReadingAt, writable: s.wantsWrite)
    }

    /// Hands this turn's share of the waiting messages to the listener whose topic each is.
    private func deliver() {
        guard hasBacklog else { return }
        let s = session
        var n = 0
        while n < Self.messagesPerTurn, session === s, let m = waiting.next() {
            n += 1
            parts.first { $0.handles(m.topic) }?.linkReceived(topic: m.topic, payload: m.payload, retained: m.retained, correlation: m.correlation)
        }
        waiting.compact()
        updateInterest()
    }

    // MARK: what the broker says

    /// Takes the broker's events (messages wait in the inbox); returns why the broker ended the connection, if it did.
    private func handleEvents(_ s: MQTTSession) -> String? {
        var goodbye: String?
        for e in s.takeEvents() {
            guard session === s else { return nil }
            switch e {
            case .connected(let rc, let reason):
                if rc == 0 { connected() } else { failed("CONNACK \(rc): \(reason)", refusal: reason) }
            case .disconnected(let rc):
                if rc == Self.sessionTakenOver {
                    let why = "another client connected with the same client id \(plan.clientID) and the broker dropped this one (two displays with one id: a cloned SD card shares /etc/machine-id; set [mqtt] client_id, or give the clone a new machine id: docs/MQTT.md)"
                    tenure.brokerGoodbye = why
                    goodbye = why
                } else if rc != 0 {
                    goodbye = "the broker closed the connection (code \(rc): \(MQTTSession.reason(rc)))"
                }
            case .message(let topic, let payload, let retained, let correlation):
                if waiting.count < Self.inboxLimit {
                    waiting.append(Inbound(topic: topic, payload: payload, retained: retained, correlation: correlation))
                } else {
                    report.messagesDropped += 1
                }
            case .published(let mid, let rc):
                let topic = inFlight.removeValue(forKey: mid) ?? "a topic"
                if rc >= 0x80, let lost = optionalTopics[topic] { optionalRefused(topic, rc, lost) }
                else if rc >= 0x80 { refused("publish to \(topic) refused: \(MQTTSession.reason(rc))", code: rc) }
            case .subscribed(let mid, let granted):
                let filter = inFlight.removeValue(forKey: mid) ?? "a topic"
                if let g = granted.first(where: { $0 >= 0x80 }), let lost = optionalTopics[filter] { optionalRefused(filter, g, lost) }
                else if let g = granted.first(where: { $0 >= 0x80 }) { refused("subscription to \(filter) refused: \(MQTTSession.reason(g))", code: g) }
                else { for p in parts { p.linkSubscribed(filter) } }
            }
        }
        report.messagesDropped += s.takeDropped()
        return goodbye
    }

    private func connected() {
        let after = report.lastError
        report.state = .connected
        report.since = env.clock.now()
        report.attempts = 0
        // A takeover by a client with our id stays named until this connection lasts.
        report.lastError = tenure.brokerGoodbye
        attempt.deadline = nil
        tenure.connectedAt = env.mono
        env.log.notice("mqtt: connected to \(plan.url) as \(plan.clientID)" + (after.map { " (after: \($0))" } ?? ""))
        for p in parts { p.linkConnected() }
    }

    private func optionalRefused(_ topic: String, _ code: Int32, _ lost: String) {
        env.log.limited(.info, topic: "mqtt-optional \(topic)", intervalMs: 3_600_000, nowMs: env.mono.milliseconds,
                        "mqtt: the broker refused \(topic) (\(MQTTSession.reason(code))): \(lost) (docs/MQTT.md)")
    }

    /// A refusal (an ACL, a size or quota limit): the connection stays (what is allowed still
    /// works); `status` says so, with the hint that fits the broker's reason code.
    private func refused(_ why: String, code: Int32?) {
        if report.state != .refused(why) {
            let hint = switch code {
            case 0x87?: " (check the broker's ACL for \(plan.topics.prefix)/#)"
            case 0x95?: " (the message is larger than the broker allows: raise its message_size_limit or max_packet_size)"
            case 0x97?: " (the broker's quota for this client is exceeded)"
            default: ""
            }
            env.log.error("mqtt: \(why)\(hint)")
            report.state = .refused(why)
            report.since = env.clock.now()
        }
        report.lastError = why
    }

    // MARK: sending

    package func subscribe(_ filter: String, retainAsPublished: Bool = false) {
        switch session?.subscribe(filter, retainAsPublished: retainAsPublished) {
        case .success(let mid)?: inFlight[mid] = filter
        case .failure(let e)?: env.log.warning("mqtt: \(e)")
        case nil: break
        }
    }

    package func send(_ topic: String, _ payload: [UInt8], retain: Bool, correlation: [UInt8]? = nil, expirySeconds: UInt32? = nil) {
        guard let s = session else { return }
        switch s.publish(topic, payload, retain: retain, correlation: correlation, expirySeconds: expirySeconds) {
        case .success(let mid):
            // Bounded: a broker that never acknowledges must not grow this without end.
            if inFlight.count < 1024 { inFlight[mid] = topic }
            traffic.publishes += 1
            traffic.bytes += topic.utf8.count + payload.count
            lastSent = env.mono
            updateInterest()
        case .failure(let e):
            if MQTTSession.isOversize(e) {
                // libmosquitto will not send a packet past the broker's Maximum Packet Size
                // (CONNACK): the message is lost, and `status` must not say all is well.
                refused("a message of \(topic.utf8.count + payload.count) bytes to \(topic) is larger than the broker's maximum packet size and was not sent (raise max_packet_size on the broker)", code: nil)
            } else {
                env.log.limited(.warning, topic: "mqtt-publish", nowMs: env.mono.milliseconds, "mqtt: \(e)")
            }
        }
    }

    /// Whether a retained publish of `payloadBytes` to `topic` is within the broker's Maximum
    /// Packet Size (a larger one would be refused, and named in `status` as a refusal).
    package func fits(_ topic: String, payloadBytes: Int) -> Bool {
        session?.fits(MQTTSession.packetSize(topic, payloadBytes: payloadBytes)) ?? false
    }

    /// Writes what libmosquitto holds queued now, rather than at the socket's next EPOLLOUT: a
    /// sync record must be on the wire before the answer to its change (a kill -9 right after
    /// the answer must not lose it).
    package func flush() {
        guard let s = session, isUp else { return }
        for _ in 0..<4 where s.wantsWrite {
            if let e = s.write() { env.log.limited(.warning, topic: "mqtt-publish", nowMs: env.mono.milliseconds, "mqtt: \(e.message)"); break }
        }
        updateInterest()
    }

    /// A clean stop: `last` goes out (the broker sends the will only for a dead link), then
    /// DISCONNECT.
    package func shutdown(last: (topic: String, payload: [UInt8])?) {
        guard let s = session else { return }
        if isUp, let last {
            send(last.topic, last.payload, retain: true)
            for _ in 0..<4 where s.wantsWrite { _ = s.write() }
        }
        s.disconnect()
        closeSession()
    }
}
