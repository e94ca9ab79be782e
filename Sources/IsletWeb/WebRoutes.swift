import IsletParts
import IsletSystem
import IsletProtocol
import IsletFrame

/// What each address of the page does (docs/WEB.md "API"), checked in this order: the name
/// the page was reached by, room for one more, the pace, the session, then the route.
extension WebPage {
    func route(_ r: HTTPRequest) {
        let mono = env.mono
        guard guarded.acceptsHost(r.header("Host")) else {
            refuse("host")
            env.log.limited(.notice, topic: "web-host", nowMs: mono.milliseconds,
                            "web: refused a request for host \(Quoted.literal(String((r.header("Host") ?? "").prefix(80)), .json)) (not this machine's name; add it to [web] hostnames if it is)")
            return fail(r, 421, "bad_host", "this page does not answer to that host name; add it to [web] hostnames")
        }
        guard admitsPeer(r, at: mono) else { return }
        if openConnections > Self.softLimit { reapLeft() }
        guard openConnections <= Self.softLimit else {
            refuse("busy")
            return fail(r, 503, "busy", "the page serves \(Self.softLimit) connections at once; try again shortly",
                        headers: [("Retry-After", "5"), ("Connection", "close")])
        }
        // Each address its own pace first, so one client's flood spends its own budget and not
        // everyone's; then the page's pace in all.
        guard admission.take(r.clientAddress, at: mono) else {
            refuse("rate_limited")
            // Closed after the answer: a client that pipelines past its pace would otherwise be
            // answered 429 as fast as it writes (the outside probe drew 14,500 a second, 73 % of a core).
            return fail(r, 429, "rate_limited", "too many requests; slow down", headers: [("Retry-After", "1"), ("Connection", "close")])
        }
        let path = r.path
        // HEAD as GET: libmicrohttpd sends a HEAD answer's headers without its body (RFC 9110 §9.3.2).
        if let (a, hashed) = PageAssets.find(path) {
            guard r.method == "GET" || r.method == "HEAD" else { return notAllowed(r, "GET, HEAD") }
            return asset(r, a, hashed: hashed)
        }
        switch (r.method, path) {
        case ("GET", "/api/session"): return session(r, mono: mono)
        case ("POST", "/api/login"): return login(r, mono: mono)
        case ("POST", "/api/logout"):
            guard sameOrigin(r) else { return }
            guarded.logout(r.cookie("islet_session"))
            endStreamsOfEndedSessions(at: mono)
            return answer(r, 200, json: Array(#"{"ok":true}"#.utf8), headers: [("Set-Cookie", guarded.cookie(""))])
        case (_, "/api/session"): return notAllowed(r, "GET")
        case (_, "/api/login"), (_, "/api/logout"): return notAllowed(r, "POST")
        default: break
        }
        guard path.hasPrefix("/api/") else { return fail(r, 404, "not_found", "no such page") }
        guard guarded.admits(r.cookie("islet_session"), at: mono) else {
            refuse("login")
            return fail(r, 401, "login_required", "log in first")
        }
        switch (r.method, path) {
        case ("GET", "/api/status"): ask(r, ControlRequest(op: .status))
        case ("POST", "/api/request"): request(r)
        case ("GET", "/api/events"): events(r)
        case ("GET", "/api/frame.png"): frame(r)
        case (_, "/api/status"), (_, "/api/events"), (_, "/api/frame.png"): notAllowed(r, "GET")
        case (_, "/api/request"): notAllowed(r, "POST")
        default: fail(r, 404, "not_found", "no such address in the API (docs/WEB.md)")
        }
    }

    /// 405 with the methods the address takes (RFC 9110 §15.5.6: `Allow` is required).
    private func notAllowed(_ r: HTTPRequest, _ allowed: String) {
        fail(r, 405, "method_not_allowed", "\(String(r.method.prefix(20))) is not taken here (it takes \(allowed))",
             headers: [("Allow", allowed)])
    }

    func fail(_ r: HTTPRequest, _ status: Int, _ code: String, _ message: String, headers: [(String, String)] = []) {
        answer(r, status, json: JSONLines.encode(ControlResponse.failure(ProtocolError(code, message))), headers: headers)
    }

    /// The page's files (docs/WEB.md "Delivery"): gzip when accepted, 304 when unchanged.
    private func asset(_ r: HTTPRequest, _ a: PageAsset, hashed: Bool) {
        respond(r, AssetAnswer.make(a, hashed: hashed, acceptEncoding: r.header("Accept-Encoding"), ifNoneMatch: r.header("If-None-Match")),
                policy: AssetAnswer.needsPolicy(a))
    }

    private func session(_ r: HTTPRequest, mono: MonotonicInstant) {
        let authenticated = guarded.admits(r.cookie("islet_session"), at: mono)
        answer(r, 200, json: Array(#"{"ok":true,"authenticated":\#(authenticated),"password":\#(guarded.needsLogin),"read_only":\#(settings.readOnly)}"#.utf8))
    }

    /// A state change needs a JSON body (a form cannot send one across sites without asking
    /// first, and the page never says yes) and, from a browser, this page's own Origin.
    private func sameOrigin(_ r: HTTPRequest) -> Bool {
        guard guarded.acceptsOrigin(r.header("Origin"), host: r.header("Host")) else {
            refuse("origin")
            fail(r, 403, "cross_origin", "a change must come from this page itself")
            return false
        }
        guard (r.header("Content-Type") ?? "").lowercased().hasPrefix("application/json") else {
            refuse("content_type")
            fail(r, 415, "json_required", "send the request as Content-Type: application/json")
            return false
        }
        guard !r.bodyTooLarge else {
            refuse("too_large")
            fail(r, 413, "too_large", "a request body is limited to \(HTTPRequest.maximumBody) bytes")
            return false
        }
        return true
    }

    private func login(_ r: HTTPRequest, mono: MonotonicInstant) {
        guard sameOrigin(r) else { return }
        guard guarded.needsLogin else { return answer(r, 200, json: Array(#"{"ok":true}"#.utf8)) }
        guard let value = try? StrictJSON.parse(r.body), case .object(let o) = value,
              case .string(let password)? = o["password"] else {
            return fail(r, 400, "invalid_request", "send {\"password\":\"…\"}")
        }
        let address = r.clientAddress
        let (outcome, firstOfEpisode) = guarded.login(Array(password.utf8), from: address, at: mono,
                                                       token: { () throws(SystemError) in try WebGuard.newToken() })
        switch outcome {
        case .accepted(let token):
            endStreamsOfEndedSessions(at: mono)   // a new session may push out the oldest
            answer(r, 200, json: Array(#"{"ok":true}"#.utf8), headers: [("Set-Cookie", guarded.cookie(token))])
        case .refused:
            refuse("bad_password")
            fail(r, 401, "bad_password", "wrong password")
        case .limited(let seconds):
            refuse("login_limited")
            if firstOfEpisode {
                env.log.notice("web: \(WebGuard.failuresAllowed) failed logins from \(address) within \(WebGuard.failureWindowMs / 1000) s; its logins wait \(seconds) s")
            }
            fail(r, 429, "rate_limited", "too many wrong passwords; try again in \(seconds) s", headers: [("Retry-After", "\(seconds)")])
        case .guessing(let seconds):
            refuse("login_guessing")
            if firstOfEpisode {
                env.log.notice("web: \(WebGuard.budgetFailures) failed logins used up the page's budget (one more every \(WebGuard.budgetRefillMs / 1000) s); every login waits until the guessing stops (the first try refused so came from \(address), which may be the owner's)")
            }
            fail(r, 429, "rate_limited", "too many wrong passwords on this page; try again in \(seconds) s", headers: [("Retry-After", "\(seconds)")])
        }
    }

    /// A control request, parsed by the socket's own parser, with the socket's own answers.
    private func request(_ r: HTTPRequest) {
        guard sameOrigin(r) else { return }
        let read = ControlRequest.read(r.body)
        switch read.request {
        case .failure(var e):
            refuse("invalid")
            e.message = String(e.message.prefix(400))
            var response = ControlResponse.failure(e)
            response.requestID = read.requestID
            answer(r, 400, json: JSONLines.encode(response))
        case .success(let req):
            if req.op == .watch { return fail(r, 400, "use_events", "watch is GET /api/events (Server-Sent Events)") }
            // A read-only page still sees: the state and the settings (`settings` reads; every
            // change op, export and import included, is refused).
            if settings.readOnly, req.op != .status, req.op != .settings {
                refuse("read_only")
                return fail(r, 403, "read_only", "this page is read only ([web] read_only = on)")
            }
            ask(r, req, requestID: read.requestID)
        }
    }

    /// Hands a request to the book; the answer goes now (a refusal) or at the end of the turn.
    func ask(_ r: HTTPRequest, _ req: ControlRequest, requestID: String? = nil) {
        guard let inbox else { return fail(r, 503, "busy", "the daemon is stopping") }
        switch inbox.request(req) {
        case .now(var response):
            response.requestID = requestID
            answer(r, response.ok ? 200 : 409, json: JSONLines.encode(response))
        case .later(let pending):
            r.context = RequestID(requestID)
            waiting.append((r, pending))
        }
    }

    /// The socket's `watch` as Server-Sent Events: the page's session, then the state, the
    /// frame, and every change and frame after.
    private func events(_ r: HTTPRequest) {
        guard let inbox else { return fail(r, 503, "busy", "the daemon is stopping") }
        let stream = EventStream(connection: r.connectionKey)
        if guarded.needsLogin { stream.session = r.cookie("islet_session") }
        stream.send(Self.event("session", Array(#"{"password":\#(guarded.needsLogin),"read_only":\#(settings.readOnly)}"#.utf8)))
        switch inbox.request(ControlRequest(op: .watch)) {
        case .now(let response):
            stream.send(Self.event("error", JSONLines.encode(response)))
            stream.end()
        case .later(let pending):
            r.context = stream
            waiting.append((r, pending))
            streams.append(stream)
        }
        startStream(r, stream)
    }

    /// The panel as PNG, each pixel `scale`×`scale` (1…16, default 4): encoded once per frame
    /// and scale, then served from the cache, so a client asking in a loop costs a copy, not an
    /// encode (issue 44 §2: 42–222 ms of the loop per request at scale 16 before).
    private func frame(_ r: HTTPRequest) {
        let text = r.argument("scale") ?? "4"
        guard text.utf8.count <= 2, let scale = Int(text), (1...16).contains(scale) else {
            return fail(r, 400, "invalid_scale", "scale is a whole number from 1 to 16")
        }
        guard let png = frames.png(scale: scale) else { return fail(r, 503, "no_frame", "the panel has shown nothing yet") }
        respond(r, HTTPAnswer(status: 200, headers: [("Content-Type", "image/png")], body: .bytes(png)))
    }
}

/// A request's own id, kept for its answer.
final class RequestID {
    let value: String?
    init(_ value: String?) { self.value = value }
}
