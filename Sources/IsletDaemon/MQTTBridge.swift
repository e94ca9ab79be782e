import IsletSystem
import IsletMQTT
import IsletProtocol
import IsletCore

/// What the daemon does for the MQTT part: answer a request (the control socket's own path),
/// and say what the activities are now.
protocol MQTTBridgeDelegate: AnyObject {
    func answer(brokerRequest: ControlRequest) -> Clients.Reply
    var activitiesNow: (activities: [Activity], now: Instant) { get }
}

/// The MQTT bridge: one more part of the loop (docs/MQTT.md). Its broker connection is one
/// descriptor in the table; libmosquitto's read, write and keep-alive steps run when that
/// descriptor or the keep-alive deadline is due. Commands become requests through the same
/// parser and `perform` as the socket's; every change of the activities is pushed, retained.
/// The blocking part of connecting (name lookup, TCP connect) runs on the connector's thread.
final class MQTTBridge {
    enum Link: Equatable {
        case connecting
        case connected
        case refused(String)
    }

    private let ctx: DaemonContext
    private unowned let loop: EventLoop
    let plan: MQTTPlan
    private let connector: MQTTConnector
    private let discovery: HomeAssistantDiscovery
    /// The session with a socket in the table (awaiting CONNACK, or connected).
    private var session: MQTTSession?
    private var fd: Int32 = -1
    private(set) var link = Link.connecting
    private var linkSince: Instant
    private var lastError: String?
    private var attempts = 0
    private var backoff = Backoff(initialMs: 1000, maximumMs: 60_000)
    /// The attempt under way on the connector's thread must finish by then.
    private var attemptDeadline: MonotonicInstant?
    /// libmosquitto's keep-alive step is due `keepalive` after the last packet sent.
    private var lastSent: MonotonicInstant
    /// What the broker holds retained for each timer, as last published in this connection.
    private var published: [String: Activity] = [:]
    private var announced: Set<String> = []
    /// Answers waiting for their change to be durable, in arrival order.
    private var held: [(generation: UInt64, ticket: StartTicket?, id: String?, correlation: [UInt8]?)] = []
    private var ledger = RequestLedger()
    /// Topic of each SUBSCRIBE and QoS 1 publish not acknowledged yet, to name a refusal.
    private var inFlight: [Int32: String] = [:]
    /// Publishes, and the bytes of topic and payload they carried (for `make bench`).
    private(set) var publishes = 0
    private(set) var publishedBytes = 0
    weak var delegate: (any MQTTBridgeDelegate)?

    static let attemptTimeoutMs: Int64 = 30_000

    init(_ ctx: DaemonContext, loop: EventLoop, plan: MQTTPlan, device: HomeAssistantDiscovery.Device) throws(DaemonStartError) {
        self.ctx = ctx
        self.loop = loop
        self.plan = plan
        do { connector = try MQTTConnector() }
        catch { throw DaemonStartError("mqtt: \(error)", status: 71) }
        discovery = HomeAssistantDiscovery(prefix: plan.settings.discoveryPrefix, node: plan.clientID, topics: plan.topics,
                                           device: device, defaultMinutes: ctx.config.session.minutes)
        linkSince = ctx.clock.now()
        lastSent = ctx.mono
    }

    func attach() throws(SystemError) {
        try loop.register(connector.done.fd.raw) { [unowned self] _ in takeAttempt() }
        ctx.log.info("mqtt: connecting to \(plan.url) as \(plan.clientID), topics \(plan.topics.prefix)/…")
        beginAttempt()
    }

    // MARK: connecting

    private func beginAttempt() {
        guard connector.canBegin else { return }
        attempts += 1
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
        // CONNACK comes as a read; until then the link is still "connecting".
    }

    /// An attempt or a connection failed: the link waits for the next try, with jitter so a
    /// house of displays does not reconnect in step after the broker restarts.
    private func failed(_ why: String, refusal: String? = nil) {
        closeSession()
        let mono = ctx.mono
        let newLink: Link = refusal.map { .refused($0) } ?? (link == .connected ? .connecting : link)
        if newLink != link || lastError == nil {
            switch newLink {
            case .refused(let r): ctx.log.error("mqtt: \(plan.url) refused the connection: \(r)")
            case .connecting, .connected: ctx.log.warning("mqtt: \(why); connecting again with backoff")
            }
        } else {
            ctx.log.debug("mqtt: attempt \(attempts) failed: \(why)")
        }
        if newLink != link { linkSince = ctx.clock.now() }
        link = newLink
        lastError = why
        backoff.failed(at: mono)
        if let at = backoff.retryAt {
            let wait = at.nanoseconds(since: mono) / 1_000_000
            let jitter = Int64.random(in: -(Int64(wait) / 4)...(Int64(wait) / 4))
            backoff.retry(at: mono.adding(milliseconds: Int64(wait) + jitter))
        }
    }

    private func closeSession() {
        if fd >= 0 { loop.unregister(fd) }
        fd = -1
        session = nil
        inFlight = [:]
        published = [:]
        announced = []
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

    /// One libmosquitto step, then what it reported; a failed step ends the connection (its
    /// error says more than the disconnect callback's code, so it wins).
    private func run(_ s: MQTTSession, _ body: () -> MQTTError?) {
        let error = body()
        let brokerSaidGoodbye = handleEvents(s)
        guard session === s else { return }
        if let error { lost(error.message) }
        else if let why = brokerSaidGoodbye { lost(why) }
        else { updateInterest() }
    }

    /// Keep-alive, the abandoned attempt, the next try.
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
        earliest(earliest(attemptDeadline, session == nil && attemptDeadline == nil ? backoff.retryAt : nil),
                 session == nil ? nil : keepaliveDue)
    }

    private func updateInterest() {
        guard let s = session, fd >= 0 else { return }
        loop.watch(fd, readable: true, writable: s.wantsWrite)
    }

    private func lost(_ why: String) { failed("lost the connection to \(plan.url): \(why)") }

    // MARK: what the broker says

    /// Handles what the broker said; returns why it ended the connection, if it did.
    @discardableResult
    private func handleEvents(_ s: MQTTSession) -> String? {
        var goodbye: String?
        for e in s.takeEvents() {
            guard session === s else { return nil }
            switch e {
            case .connected(let rc, let reason):
                if rc == 0 { connected() }
                else { failed("CONNACK \(rc): \(reason)", refusal: reason) }
            case .disconnected(let rc):
                if rc != 0 { goodbye = "the broker closed the connection (code \(rc))" }
            case .message(let topic, let payload, let retained, let correlation):
                received(topic: topic, payload: payload, retained: retained, correlation: correlation)
            case .published(let mid, let rc):
                let topic = inFlight.removeValue(forKey: mid) ?? "a topic"
                if rc >= 0x80 { refusedByBroker("publish to \(topic) refused: \(MQTTSession.reason(rc))") }
            case .subscribed(let mid, let granted):
                let filter = inFlight.removeValue(forKey: mid) ?? "a topic"
                if let g = granted.first(where: { $0 >= 0x80 }) { refusedByBroker("subscription to \(filter) refused: \(MQTTSession.reason(g))") }
            }
        }
        return goodbye
    }

    /// An ACL denial: the link stays up (what is allowed still works), and `status` says so.
    private func refusedByBroker(_ why: String) {
        if link != .refused(why) {
            ctx.log.error("mqtt: \(why) (check the broker's ACL for \(plan.topics.prefix)/#)")
            link = .refused(why)
            linkSince = ctx.clock.now()
        }
        lastError = why
    }

    private func connected() {
        let wasRefused = if case .refused = link { true } else { false }
        link = .connected
        linkSince = ctx.clock.now()
        attempts = 0
        backoff.succeeded()
        ctx.log.notice("mqtt: connected to \(plan.url) as \(plan.clientID)" + (wasRefused || lastError != nil ? " (after: \(lastError ?? "a refusal"))" : ""))
        lastError = nil
        for filter in [plan.topics.command, plan.topics.activityFilter, discovery.statusTopic, discovery.configFilter] {
            switch session?.subscribe(filter) {
            case .success(let mid)?: inFlight[mid] = filter
            case .failure(let e)?: ctx.log.warning("mqtt: \(e)")
            case nil: break
            }
        }
        send(plan.topics.availability, Array("online".utf8), retain: true)
        let (activities, now) = delegate?.activitiesNow ?? ([], ctx.clock.now())
        publishChanges(activities, now: now)
    }

    private func received(topic: String, payload: [UInt8], retained: Bool, correlation: [UInt8]?) {
        if topic == plan.topics.command {
            // A retained command would act again at every reconnect: refused, not done.
            if retained {
                respond(.failure(ProtocolError("retained_command", "a command must not be retained; publish it without -r")), id: nil, correlation: correlation)
                return
            }
            command(payload, correlation: correlation)
        } else if topic == discovery.statusTopic {
            if payload == Array("online".utf8) {
                ctx.log.info("mqtt: Home Assistant is online; announcing again")
                announced = []
                announce(delegate?.activitiesNow.activities ?? [])
            }
        } else if retained, !payload.isEmpty, let timer = plan.topics.timer(ofActivityTopic: topic) {
            // Left from an earlier run (an activity dismissed while we were away).
            if published[timer] == nil, !(delegate?.activitiesNow.activities.contains { $0.timerID == timer } ?? false) {
                send(topic, [], retain: true)
            }
        } else if retained, !payload.isEmpty, discovery.isConfigTopic(topic) {
            if !wantedConfigTopics(delegate?.activitiesNow.activities ?? []).contains(topic) { send(topic, [], retain: true) }
        }
    }

    // MARK: commands

    private func command(_ payload: [UInt8], correlation: [UInt8]?) {
        guard payload.count <= ControlRequest.maximumLineBytes else {
            respond(.failure(ProtocolError("payload_too_large", "a command is limited to \(ControlRequest.maximumLineBytes) bytes (got \(payload.count))")),
                    id: nil, correlation: correlation)
            return
        }
        let id = ControlRequest.requestID(in: payload)
        guard plan.settings.commands else {
            respond(.failure(ProtocolError("forbidden", "this display takes no commands over MQTT ([mqtt] commands = off)")), id: id, correlation: correlation)
            return
        }
        if let id {
            if let previous = ledger.answer(for: id, nowMs: ctx.mono.milliseconds) {
                send(plan.topics.response, previous, retain: false, correlation: correlation)
                return
            }
            // The first one is waiting for its write: its answer will come; this is no second request.
            if held.contains(where: { $0.id == id }) { return }
        }
        let request: ControlRequest
        do { request = try ControlRequest.parse(payload) }
        catch {
            respond(.failure(error), id: id, correlation: correlation)
            return
        }
        guard let reply = delegate?.answer(brokerRequest: request) else { return }
        switch reply {
        case .now(let r): respond(r, id: id, correlation: correlation)
        case .afterWrite(let generation, let ticket): held.append((generation, ticket, id, correlation))
        }
    }

    private func respond(_ response: ControlResponse, id: String?, correlation: [UInt8]?) {
        var r = response
        r.requestID = id
        let bytes = Array(JSONLines.encode(r).dropLast())
        if let id { ledger.record(id, answer: bytes, nowMs: ctx.mono.milliseconds) }
        send(plan.topics.response, bytes, retain: false, correlation: correlation)
    }

    /// Sends the held answers whose write is done (the socket's rule: an answer to a change
    /// is sent once the change is durable).
    func releaseAnswers(durable: UInt64, _ answer: (StartTicket?) -> ControlResponse) {
        while let first = held.first, first.generation <= durable {
            held.removeFirst()
            respond(answer(first.ticket), id: first.id, correlation: first.correlation)
        }
    }

    // MARK: pushing state

    /// Publishes each activity that changed since it was last published (retained), and
    /// clears the retained message of each one that is gone; keeps the announcements in step.
    func publishChanges(_ activities: [Activity], now: Instant) {
        guard link != .connecting, session != nil else { return }
        for a in activities where published[a.timerID] != a {
            published[a.timerID] = a
            send(plan.topics.activity(a.timerID), Array(JSONLines.encode(ActivityReport(activity: a, now: now)).dropLast()), retain: true)
        }
        for timer in published.keys where !activities.contains(where: { $0.timerID == timer }) {
            published.removeValue(forKey: timer)
            send(plan.topics.activity(timer), [], retain: true)
        }
        announce(activities)
    }

    /// The timers whose entities Home Assistant keeps: the configured ones, and any with an activity.
    private func wantedTimers(_ activities: [Activity]) -> Set<String> {
        guard plan.settings.discovery else { return [] }
        let configured = plan.settings.timers ?? defaultTimers()
        return Set(configured).union(activities.map(\.timerID))
    }

    private func defaultTimers() -> [String] {
        var list = [ctx.config.session.attributes.timerID]
        for b in ctx.config.buttonConfig.map.bindings { if let t = b.timerID, !list.contains(t) { list.append(t) } }
        return list
    }

    private func wantedConfigTopics(_ activities: [Activity]) -> Set<String> {
        Set(wantedTimers(activities).flatMap { discovery.configTopics(timer: $0) })
    }

    private func announce(_ activities: [Activity]) {
        let wanted = wantedTimers(activities)
        for timer in wanted.subtracting(announced).sorted() {
            for a in discovery.announcements(timer: timer) { send(a.topic, a.payload, retain: true) }
        }
        for timer in announced.subtracting(wanted).sorted() {
            for topic in discovery.configTopics(timer: timer) { send(topic, [], retain: true) }
        }
        announced = wanted
    }

    private func send(_ topic: String, _ payload: [UInt8], retain: Bool, correlation: [UInt8]? = nil) {
        guard let s = session else { return }
        switch s.publish(topic, payload, retain: retain, correlation: correlation) {
        case .success(let mid):
            // Bounded: a broker that never acknowledges must not grow this without end.
            if inFlight.count < 1024 { inFlight[mid] = topic }
            publishes += 1
            publishedBytes += topic.utf8.count + payload.count
            lastSent = ctx.mono
            updateInterest()
        case .failure(let e):
            ctx.log.limited(.warning, topic: "mqtt-publish", nowMs: ctx.mono.milliseconds, "mqtt: \(e)")
        }
    }

    // MARK: status and stop

    func status() -> MQTTStatus {
        let (state, reason): (String, String?) = switch link {
        case .connecting: ("connecting", nil)
        case .connected: ("connected", nil)
        case .refused(let r): ("refused", r)
        }
        return MQTTStatus(state: state, since: linkSince, broker: plan.url.description, clientID: plan.clientID,
                          topicPrefix: plan.topics.prefix, reason: reason, lastError: lastError, attempts: attempts)
    }

    /// A clean stop says `offline` itself (the broker sends the will only for a dead link).
    func shutdown() {
        guard let s = session else { return }
        if link != .connecting {
            send(plan.topics.availability, Array("offline".utf8), retain: true)
            for _ in 0..<4 where s.wantsWrite { _ = s.write() }
        }
        s.disconnect()
        closeSession()
    }
}
