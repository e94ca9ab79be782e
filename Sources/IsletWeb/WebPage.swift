import IsletSettings
import IsletParts
import IsletConfig
import IsletSystem
import IsletProtocol

/// The web page (docs/WEB.md): one more part of the loop, a source of requests and a sink of
/// changes like the control socket. Every request goes through the inbox as the socket's own
/// `ControlRequest`; answers wait for the end of the turn like the socket's; event streams get
/// the watchers' `change` and the panel's frames. libmicrohttpd runs inside the loop's turn.
package final class WebPage: DaemonPart, HTTPServerDelegate {
    /// Connections served at once; a newcomer past it gets 503 (past `hardLimit` libmicrohttpd stops accepting).
    package static let softLimit = 32
    /// Connections one address may hold (libmicrohttpd closes the next at once).
    package static let perAddressLimit = 8

    let env: PartEnvironment
    let settings: WebSettings
    private let server: HTTPServer
    var guarded: WebGuard
    private weak var loop: EventLoop?
    weak var inbox: (any Inbox)?
    /// An open connection: its socket, since when it owes a whole request, whether it has sent
    /// one yet, and whether its socket is watched for the client leaving (a parked stream).
    struct Connection {
        var fd: Int32
        var waitingSince: MonotonicInstant?
        var fresh = true
        var watched = false
        /// Cut by the page; libmicrohttpd closes it at its next run. No longer counted.
        var cut = false
    }
    private var connections: [OpaquePointer: Connection] = [:]
    var admission = WebAdmission()
    /// Requests waiting for the end of the turn, and streams for their first message.
    var waiting: [(request: HTTPRequest, pending: PendingAnswer)] = []
    var streams: [EventStream] = []
    /// The panel's picture, its frame event and its PNGs (WebFrames).
    var frames = WebFrames()
    var counters = (requests: 0, refused: [String: Int]())
    /// The page's address on this machine (status.web.url), and the one Home Assistant links to,
    /// nil on loopback (`WebSettings.advertisedURL`).
    let address: PageAddress
    /// A parked connection was resumed in this turn: libmicrohttpd runs again at the next
    /// (resuming does not wake its epoll descriptor).
    var kick = false

    /// `[web]`'s page, or none without the section.
    package static func make(_ config: DaemonConfig, _ env: PartEnvironment) throws(DaemonStartError) -> [any DaemonPart] {
        guard let web = config.parts[WebSettings.self] else { return [] }
        let page = try WebPage(env, settings: web, origin: { config.origins[$0] ?? config.origins["web"] ?? "[web]" })
        if web.checksPeers {
            // The control socket's group: socket_group, or the daemon's own group.
            let gid = config.socketGroup.flatMap(Identity.groupID(named:)) ?? Identity.effectiveGroupID
            page.guarded.peers = PeerPolicy(group: gid, groupName: config.socketGroup ?? Identity.groupName(of: gid) ?? "gid \(gid)",
                                         ownUser: Identity.effectiveUserID)
        }
        return [page]
    }

    init(_ env: PartEnvironment, settings: WebSettings, origin: (String) -> String) throws(DaemonStartError) {
        self.env = env
        self.settings = settings
        var password: String?
        var cert: String?
        var key: String?
        do {
            if let p = settings.passwordFile {
                password = try SecretFile.password(p, origin: origin("web.password_file"), key: "web.password_file")
            }
            if let c = settings.certFile, let k = settings.keyFile {
                cert = try Self.pem(c, origin: origin("web.cert_file"), key: "web.cert_file")
                key = try Self.pem(k, origin: origin("web.key_file"), key: "web.key_file")
            }
        } catch { throw DaemonStartError("\(error)", status: ConfigError.exitStatus) }
        let machine = ThisMachine.hostName
        guarded = WebGuard(settings: settings, machineName: machine, password: password)
        var s = HTTPServer.Settings(address: settings.listen.host, port: settings.listen.port, ipv6: settings.listen.isIPv6)
        s.perAddressLimit = UInt32(Self.perAddressLimit)
        s.certPEM = cert
        s.keyPEM = key
        do { server = try HTTPServer(s) }
        catch { throw DaemonStartError("the web page: \(error)", status: 69) }
        address = PageAddress(url: settings.pageURL(machineName: machine), advertised: settings.advertisedURL(machineName: machine))
        server.delegate = self
    }

    private static func pem(_ path: String, origin: String, key: String) throws(ConfigError) -> String {
        switch FileSystem.readFile(path, limit: 64 * 1024) {
        case .failure(let e): throw ConfigError(origin, "\(key) = \(path): \(e.errno)")
        case .success(let b):
            guard let t = String(validating: b, as: UTF8.self), t.contains("-----BEGIN ") else {
                throw ConfigError(origin, "\(key) = \(path): not a PEM file (no -----BEGIN line)")
            }
            return t
        }
    }

    package var summary: String? { "web page on \(address.url)" + (settings.readOnly ? " (read only)" : "") }

    package func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) {
        self.loop = loop
        self.inbox = inbox
        try loop.register(server.epollFD) { [unowned self] _ in server.run() }
    }

    /// libmicrohttpd's own deadline, and the first connection that owes a request too long.
    package var nextDeadline: MonotonicInstant? {
        let mono = env.mono
        let own = kick ? mono : server.deadline(now: mono)
        let open = openConnections
        let slow = connections.values.compactMap { c in
            c.waitingSince.map { $0.adding(milliseconds: WebAdmission.deadlineMs(fresh: c.fresh, open: open)) }
        }.min()
        return earliest(earliest(own, slow), earliest(guarded.episodeEnds, sessionStreamsEnd))
    }

    package var hasBacklog: Bool { kick }

    package func afterEvents(_ turn: TurnView) {
        if let end = sessionStreamsEnd, end <= turn.mono { endStreamsOfEndedSessions(at: turn.mono) }
        if let e = guarded.endEpisode(at: turn.mono), e.exhausted {
            env.log.notice("web: password guessing over: \(e.tries) login tries (\(e.wrong) wrong passwords, \(e.refused) refused unchecked) from \(e.addressCount) addresses in \(turn.mono.nanoseconds(since: e.since) / 1_000_000_000) s")
        }
        if kick {
            kick = false
            server.run()
        } else {
            server.runIfDue(now: turn.mono)
        }
        if !connections.isEmpty { reapLeft() }
        // Slowloris and idle holders: a connection that owes a whole request past its deadline
        // is cut (its owner, libmicrohttpd, sees the end and closes it at its next run).
        let open = openConnections
        let late = connections.filter { _, c in
            c.waitingSince.map { turn.mono.nanoseconds(since: $0) / 1_000_000 >= WebAdmission.deadlineMs(fresh: c.fresh, open: open) } ?? false
        }
        for (key, c) in late {
            connections[key]?.waitingSince = nil
            connections[key]?.cut = true
            refuse(c.fresh ? "slow" : "idle")
            if c.fresh {
                env.log.limited(.notice, topic: "web-slow", nowMs: turn.mono.milliseconds,
                                "web: cut a connection that did not send a whole request within \(WebAdmission.deadlineMs(fresh: true, open: open)) ms")
            }
            SocketEnd.cut(c.fd)
        }
        if !late.isEmpty { server.run() }
    }

    func refuse(_ why: String) { counters.refused[why, default: 0] += 1 }

    // MARK: HTTPServerDelegate

    package func opened(_ connection: OpaquePointer) {
        connections[connection] = Connection(fd: HTTPConnections.fd(connection), waitingSince: env.mono)
    }

    package func closed(_ connection: OpaquePointer) {
        if let c = connections.removeValue(forKey: connection), c.watched { loop?.unregister(Descriptor(c.fd)) }
        guarded.peers?.connections[connection] = nil
        streams.removeAll { $0.connection == connection }
        waiting.removeAll { $0.request.connectionKey == connection }
    }

    /// Framing and size, from the headers alone: a refusal here goes out before the body is read.
    package func headersIn(_ request: HTTPRequest) {
        switch RequestFraming.check(count: request.occurrences, value: request.header, malformed: request.malformedHeaders,
                                    version: request.version, maximumBody: HTTPRequest.maximumBody) {
        case .fine: return
        case .ambiguous(let why):
            refuse("framing")
            env.log.limited(.notice, topic: "web-framing", nowMs: env.mono.milliseconds,
                            "web: refused a request from \(request.clientAddress) with \(why) (RFC 9112 §6.3)")
            fail(request, 400, "bad_framing", "refused: \(why) (RFC 9112 §6.3)", headers: [("Connection", "close")])
        case .tooLarge(let n):
            refuse("too_large")
            request.bodyTooLarge = true
            fail(request, 413, "too_large", "a request body is limited to \(HTTPRequest.maximumBody) bytes (Content-Length \(n == Int.max ? "too large to read" : String(n)))",
                 headers: [("Connection", "close")])
        }
    }

    package func cut(_ request: HTTPRequest) {
        refuse("too_large")
        env.log.limited(.notice, topic: "web-large", nowMs: env.mono.milliseconds,
                        "web: cut a request from \(request.clientAddress) whose body passed \(HTTPRequest.maximumBody) bytes")
    }

    package func serve(_ request: HTTPRequest) {
        connections[request.connectionKey]?.waitingSince = nil
        connections[request.connectionKey]?.fresh = false
        counters.requests += 1
        route(request)
    }

    package func finished(_ request: HTTPRequest) {
        if connections[request.connectionKey] != nil { connections[request.connectionKey]?.waitingSince = env.mono }
        waiting.removeAll { $0.request === request }
    }

    package func log(_ message: String) {
        env.log.limited(.info, topic: "web-mhd", nowMs: env.mono.milliseconds, "web: \(message)")
    }

    var openConnections: Int { connections.values.count { !$0.cut } }

    /// At each turn: connections whose client has already left are cut and stop counting. libmicrohttpd notices a client that sent part of a request and
    /// closed only at its next deadline (seen: 36 such slots held for a second after a round of
    /// half-sent requests); a peek finds them at once. At most `hardLimit` (64) peeks a turn, about a microsecond each.
    func reapLeft() {
        var reaped = 0
        // Only connections that owe a request: one whose request is being answered may have
        // half-closed after sending it (HTTP allows it) and still waits for the answer.
        for (key, c) in connections where !c.cut && c.waitingSince != nil && SocketEnd.peerClosed(c.fd) {
            connections[key]?.cut = true
            connections[key]?.waitingSince = nil
            SocketEnd.cut(c.fd)
            reaped += 1
        }
        if reaped > 0 { kick = true }
    }

    func answer(_ request: HTTPRequest, _ status: Int, json: [UInt8], headers: [(String, String)] = []) {
        respond(request, HTTPAnswer(status: status, headers: [("Content-Type", "application/json")] + headers, body: .bytes(json)))
    }

    /// `policy` false only for a page asset that is no document and no worker (AssetAnswer.needsPolicy):
    /// it keeps nosniff alone. Every API answer, refusal and error keeps all four.
    func respond(_ request: HTTPRequest, _ a: HTTPAnswer, policy: Bool = true) {
        var a = a
        a.headers += policy ? Self.securityHeaders : Self.subresourceHeaders
        // Nothing is kept but what says how (the page's assets): the API's answers are live.
        if !a.headers.contains(where: { $0.0 == "Cache-Control" }) { a.headers.append(("Cache-Control", "no-store")) }
        server.answer(request, a)
        kick = true
    }

    func startStream(_ request: HTTPRequest, _ stream: EventStream) {
        let a = HTTPAnswer(status: 200, headers: [("Content-Type", "text/event-stream"), ("X-Accel-Buffering", "no"), ("Cache-Control", "no-store")] + Self.securityHeaders,
                           body: .stream(stream))
        server.stream(request, a)
        watchForLeaving(request.connectionKey, stream)
    }

    /// A parked stream is out of libmicrohttpd's sight: a client that leaves would hold its slot
    /// until the next event is written, which on a quiet panel is never. A stream's client sends
    /// nothing after its request, so its socket turning readable is the client leaving (or
    /// misbehaving): the stream ends and the slot is freed at once.
    private func watchForLeaving(_ key: OpaquePointer, _ stream: EventStream) {
        guard let loop, let c = connections[key], !c.watched, c.fd >= 0 else { return }
        do {
            try loop.register(Descriptor(c.fd)) { [unowned self] _ in
                guard let c = connections[key], c.watched else { return }
                loop.unregister(Descriptor(c.fd))
                connections[key]?.watched = false
                connections[key]?.cut = true
                stream.end()
                SocketEnd.cut(c.fd)
                kick = true
            }
            connections[key]?.watched = true
        } catch {
            env.log.limited(.warning, topic: "web-watch", nowMs: env.mono.milliseconds,
                            "web: cannot watch an event stream's socket: \(error)")
        }
    }

    /// On every answer: only this origin's own assets run, nothing frames the page, no guessing of types.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]
    /// A stylesheet, a script, an image, a manifest: no guessing of types is all that applies.
    static let subresourceHeaders: [(String, String)] = [("X-Content-Type-Options", "nosniff")]

    // MARK: the turn

    /// Answers whose write is done, from the turn's one snapshot; streams get their first message.
    package func releaseAnswers(_ answers: Answers) {
        guard !waiting.isEmpty else { return }
        var still: [(request: HTTPRequest, pending: PendingAnswer)] = []
        for w in waiting {
            guard answers.ready(w.pending) else { still.append(w); continue }
            var response = answers.make(w.pending)
            if let id = w.request.context as? RequestID { response.requestID = id.value }
            if let stream = w.request.context as? EventStream {
                stream.awaitingFirst = false
                var first = response
                first.event = "state"
                stream.send(Self.event("state", JSONLines.encode(first)))
                if let event = frames.event { stream.send(event) }
                kick = true
            } else {
                answer(w.request, response.ok ? 200 : 409, json: JSONLines.encode(response))
            }
        }
        waiting = still
    }

    /// The watchers' change and the panel's new frame, to every stream.
    package func publish(_ outcome: TurnOutcome) {
        if let p = outcome.picture, let event = frames.take(p) { broadcast(event) }
        if let change = outcome.change { broadcast(Self.event("change", JSONLines.encode(change))) }
    }

    /// A config was put in force (the page's settings from any door, or the file reloaded):
    /// each stream gets a `settings` notice, and an open Settings card reads them again.
    package func reload(_ config: PartConfig) { broadcast(Self.settingsNotice) }

    /// No values: the card asks for them (`settings`), through the page's own guard.
    static let settingsNotice = event("settings", Array("{}".utf8))

    /// The first instant a stream's session expires by itself.
    private var sessionStreamsEnd: MonotonicInstant? {
        streams.compactMap { $0.session.flatMap(guarded.expiry(of:)) }.min()
    }

    /// Ends every stream whose session is over (logged out, expired, or pushed out by newer
    /// ones): a stream is a session's, and must not outlive it.
    func endStreamsOfEndedSessions(at mono: MonotonicInstant) {
        guard guarded.needsLogin else { return }
        var ended = 0
        for s in streams where !guarded.admits(s.session, at: mono) {
            s.end()
            ended += 1
        }
        if ended > 0 {
            streams.removeAll { $0.ended }
            kick = true
        }
    }

    private func broadcast(_ bytes: [UInt8]) {
        endStreamsOfEndedSessions(at: env.mono)
        kick = kick || !streams.isEmpty
        var dropped = 0
        for s in streams where !s.awaitingFirst {
            if !s.send(bytes) {
                dropped += 1
                s.end()
                if let fd = connections[s.connection]?.fd { SocketEnd.cut(fd) }
            }
        }
        if dropped > 0 {
            streams.removeAll { $0.ended }
            counters.refused["stream_behind", default: 0] += dropped
            env.log.limited(.notice, topic: "web-stream", nowMs: env.mono.milliseconds,
                            "web: dropped \(dropped) event stream(s) that stopped reading (\(EventStream.maximumQueued / 1024) KiB behind)")
        }
    }

    /// One Server-Sent Event: `data` is one JSON line (JSON has no raw newlines).
    static func event(_ name: String, _ json: [UInt8]) -> [UInt8] {
        var data = json
        while data.last == 10 { data.removeLast() }
        return Array("event: \(name)\ndata: ".utf8) + data + Array("\n\n".utf8)
    }

    /// Home Assistant links the device to the page, only when another machine can reach it
    /// (`WebSettings.advertisedURL`): a loopback address would open the Home Assistant user's own machine.
    package func lend(to values: inout TurnValues) {
        if let advertised = address.advertised { values[ConfigurationPage.self] = ConfigurationPage(url: advertised) }
    }

    package func report(into status: inout DaemonStatus, _ turn: TurnView) {
        status.set("web", WebStatus(listen: settings.listen.description, url: address.url, tls: settings.tls, readOnly: settings.readOnly,
                               password: guarded.needsLogin, connections: openConnections, streams: streams.count,
                               requests: counters.requests, refused: counters.refused))
    }

    /// At stop: streams end, the server closes its sockets.
    package func shutdown(_ turn: TurnView) {
        for s in streams { s.end() }
        server.run()
        server.stop()
    }
}
