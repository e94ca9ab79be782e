import CMicroHTTPD
import IsletSystem

/// libmicrohttpd driven by the daemon's loop (docs/WEB.md "The server"): its epoll descriptor
/// sits in the loop's table and `run` is called when it is readable or its timeout comes; every
/// callback below runs inside `run`, on the loop's thread. One server per process (the C
/// boundary keeps one set of callbacks).
package final class HTTPServer {
    package struct Settings {
        package var address: String
        package var port: UInt16
        package var ipv6: Bool
        /// Connections libmicrohttpd holds at all; past it, it stops accepting (a newcomer waits in the
        /// kernel's backlog until one closes).
        package var hardLimit: UInt32 = 64
        /// Connections one client address may hold at once; libmicrohttpd closes its next one
        /// as soon as it is accepted, so one host cannot fill the server or the listen backlog.
        package var perAddressLimit: UInt32 = 8
        /// Seconds of silence before libmicrohttpd cuts a connection (streams are exempt while parked).
        package var idleSeconds: UInt32 = 30
        /// Each connection's memory: bounds its request line and headers.
        package var memoryBytes = 16 * 1024
        package var certPEM: String?
        package var keyPEM: String?

        package init(address: String, port: UInt16, ipv6: Bool) {
            self.address = address
            self.port = port
            self.ipv6 = ipv6
        }
    }

    /// What the server hands the part: complete requests, and connections coming and going.
    package weak var delegate: (any HTTPServerDelegate)?
    private var handle: OpaquePointer?
    /// Kept alive while the server runs: libmicrohttpd holds their pointers.
    private var strings: [UnsafeMutablePointer<CChar>] = []
    package private(set) var epollFD: Descriptor = Descriptor(-1)
    /// Connections closed so far: `run` runs again when one closed inside it.
    private var closedCount = 0
    /// When a run was last made because libmicrohttpd asked for one at once (see `deadline(now:)`),
    /// and whether the last run called back at all (a request, a connection, a stream read).
    private var lastImmediateRun: MonotonicInstant?
    private var lastRunProgressed = false
    /// Runs made at once in a row that called back nothing: past `idleRunsBeforePacing`, paced.
    private var idleImmediateRuns = 0
    private var callbacks = 0

    /// Loads libmicrohttpd (only now: a daemon without `[web]` never maps it), binds, listens.
    package init(_ s: Settings) throws(WebError) {
        var why = [CChar](repeating: 0, count: 512)
        if islet_web_load(&why, why.count) != 0 { throw WebError("cannot load libmicrohttpd: \(Self.text(why))") }
        func keep(_ t: String?) -> UnsafePointer<CChar>? {
            guard let t else { return nil }
            let c = t.utf8CString
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: c.count)
            _ = UnsafeMutableBufferPointer(start: p, count: c.count).initialize(from: c)
            strings.append(p)
            return UnsafePointer(p)
        }
        var c = islet_web_config()
        c.address = keep(s.address)
        c.port = s.port
        c.ipv6 = s.ipv6 ? 1 : 0
        c.connection_limit = s.hardLimit
        c.per_ip_limit = s.perAddressLimit
        c.timeout_seconds = s.idleSeconds
        c.memory_limit = s.memoryBytes
        c.cert_pem = keep(s.certPEM)
        c.key_pem = keep(s.keyPEM)
        c.on_request = { context, connection, url, method, version, upload, uploadSize, state in
            guard let context, let connection, let uploadSize, let state else { return 0 }
            HTTPServer.from(context).callbacks &+= 1
            return HTTPServer.from(context).request(connection, url: url, method: method, version: version, upload: upload,
                                                    uploadSize: uploadSize, state: state) ? 1 : 0
        }
        c.on_completed = { context, _, state, _ in
            guard let context, let state else { return }
            HTTPServer.from(context).callbacks &+= 1
            HTTPServer.from(context).completed(state)
        }
        c.on_connection = { context, connection, opened in
            guard let context, let connection else { return }
            let server = HTTPServer.from(context)
            server.callbacks &+= 1
            if opened != 0 { server.delegate?.opened(connection) } else {
                server.closedCount &+= 1
                server.delegate?.closed(connection)
            }
        }
        c.on_log = { context, message in
            guard let context, let message else { return }
            HTTPServer.from(context).delegate?.log(String(cString: message))
        }
        c.context = Unmanaged.passUnretained(self).toOpaque()
        guard let d = islet_web_start(&c, &why, why.count) else {
            free()
            throw WebError("cannot listen on \(s.ipv6 ? "[\(s.address)]" : s.address):\(s.port): \(Self.text(why))")
        }
        handle = d
        epollFD = Descriptor(islet_web_epoll_fd(d))
    }

    deinit { stop() }

    private static func from(_ context: UnsafeMutableRawPointer) -> HTTPServer {
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    }

    private static func text(_ c: [CChar]) -> String {
        String(decoding: c.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func free() {
        for p in strings { p.deallocate() }
        strings = []
    }

    package static var libraryVersion: String { String(cString: islet_web_version()) }

    /// Does what the sockets have ready (accepts, reads, writes, callbacks), without blocking.
    ///
    /// At its connection limit libmicrohttpd takes its listening socket out of its epoll set and
    /// puts it back only at the start of a later run; connections are closed at the end of a
    /// run. So when a run closes connections, it runs once more: otherwise, with every client
    /// gone, no event and no timeout is left to bring the listening socket back, and the page
    /// accepts nothing until a restart (issue 44 §1: seen after two rounds of 100 half-sent
    /// requests). Bounded: each extra run needs a connection closed in the run before.
    package func run() {
        guard let handle else { return }
        let callbacksBefore = callbacks
        defer {
            lastRunProgressed = callbacks != callbacksBefore
            if lastRunProgressed { idleImmediateRuns = 0 }
        }
        for _ in 0..<4 {
            let closedBefore = closedCount
            _ = islet_web_run(handle)
            if closedCount == closedBefore { break }
        }
    }

    /// Milliseconds until `run` is due whatever the sockets do; nil: none.
    package var timeoutMs: Int64? {
        guard let handle else { return nil }
        let t = islet_web_timeout(handle)
        return t < 0 ? nil : t
    }

    /// When `run` is next due whatever the sockets do, at `now`; nil: none.
    ///
    /// libmicrohttpd 0.9.75 answers "now" (a timeout of 0) for as long as a TLS handshake waits
    /// for its client: the connection stays on its list of ready ones though its socket has
    /// nothing. Taken at its word, one byte of a ClientHello and silence made the loop spin
    /// (93 % of a core, 10,000 wake-ups a second, found by the outside probe of issue 44). The
    /// first "now" after a run is honoured at once (TLS records already read and waiting need
    /// it), and so is every one while runs do something (a request of a pipeline, a connection
    /// opened or closed); after `idleRunsBeforePacing` runs in a row that called back nothing,
    /// they are paced `immediatePacingMs` apart. A handshake that does progress wakes the loop through its
    /// socket, not through this deadline.
    package func deadline(now: MonotonicInstant) -> MonotonicInstant? {
        guard let t = timeoutMs else { return nil }
        if t > 0 { return now.adding(milliseconds: min(t, 3_600_000)) }
        guard idleImmediateRuns >= Self.idleRunsBeforePacing, let last = lastImmediateRun else { return now }
        return last.adding(milliseconds: Self.immediatePacingMs)
    }

    package static let immediatePacingMs: Int64 = 20
    package static let idleRunsBeforePacing = 3

    /// Runs when libmicrohttpd's own deadline has come (see `deadline(now:)`).
    package func runIfDue(now: MonotonicInstant) {
        guard let t = timeoutMs, t == 0 else {
            lastImmediateRun = nil
            idleImmediateRuns = 0
            return
        }
        if idleImmediateRuns >= Self.idleRunsBeforePacing, let last = lastImmediateRun,
           now.nanoseconds(since: last) / 1_000_000 < Self.immediatePacingMs { return }
        lastImmediateRun = now
        run()
        idleImmediateRuns = lastRunProgressed ? 0 : idleImmediateRuns + 1
    }

    package func stop() {
        guard let h = handle else { return }
        handle = nil
        islet_web_stop(h)
        free()
    }

    // MARK: requests

    /// libmicrohttpd's access handler: the first call has the headers, later ones the body in
    /// pieces, the last one (no bytes) the end; a parked request is called again once resumed.
    private func request(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                         version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                         state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Bool {
        guard let raw = state.pointee else {
            let r = HTTPRequest(connection: connection, method: method.map { String(cString: $0) } ?? "",
                                target: url.map { String(cString: $0) } ?? "/", version: version.map { String(cString: $0) } ?? "")
            state.pointee = Unmanaged.passRetained(r).toOpaque()
            delegate?.headersIn(r)
            // Refused from its headers (a body too large, a smuggling attempt): answered before
            // any of the body is read; libmicrohttpd then discards the rest and closes.
            if let answer = r.answer {
                r.answer = nil
                r.served = true
                return queue(answer, on: connection)
            }
            return true
        }
        let r = Unmanaged<HTTPRequest>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            // A body past the bound (chunked, so no length was given up front) is cut the moment
            // it passes: closing is all HTTP leaves once a body is half read.
            guard let upload, r.body.count + uploadSize.pointee <= HTTPRequest.maximumBody else {
                r.bodyTooLarge = true
                r.body = []
                delegate?.cut(r)
                return false
            }
            upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                r.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
            }
            uploadSize.pointee = 0
            return true
        }
        if let answer = r.answer {
            r.answer = nil
            return queue(answer, on: connection)
        }
        if r.parked { return true }
        if r.served { return true }
        r.served = true
        delegate?.serve(r)
        if let answer = r.answer {
            r.answer = nil
            return queue(answer, on: connection)
        }
        if !r.streaming {
            r.parked = true
            islet_web_suspend(connection)
        }
        return true
    }

    private func completed(_ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let raw = state.pointee else { return }
        state.pointee = nil
        let r = Unmanaged<HTTPRequest>.fromOpaque(raw).takeRetainedValue()
        r.done = true
        delegate?.finished(r)
    }

    /// Answers a request that waited (parked): it goes out at the next `run`.
    package func answer(_ r: HTTPRequest, _ answer: HTTPAnswer) {
        guard !r.done else { return }
        r.answer = answer
        if r.parked {
            r.parked = false
            islet_web_resume(r.connection)
        }
    }

    private func queue(_ a: HTTPAnswer, on connection: OpaquePointer) -> Bool {
        let response: OpaquePointer?
        switch a.body {
        case .bytes(let b): response = b.withUnsafeBytes { islet_web_response($0.baseAddress, $0.count) }
        case .stream(let s):
            let context = Unmanaged.passRetained(s).toOpaque()
            response = islet_web_stream(context, { context, _, buffer, max in
                guard let context, let buffer else { return islet_web_reader_error() }
                return Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
            }, { context in
                guard let context else { return }
                Unmanaged<EventStream>.fromOpaque(context).release()
            })
            if response == nil { Unmanaged<EventStream>.fromOpaque(context).release() }
        }
        guard let response else { return false }
        for (name, value) in a.headers { _ = islet_web_add_header(response, name, value) }
        let ok = islet_web_queue(connection, UInt32(a.status), response) != 0
        islet_web_release(response)
        return ok
    }

    /// Starts a stream on `r` now (from `serve`): headers go out, bytes as the stream gets them.
    package func stream(_ r: HTTPRequest, _ answer: HTTPAnswer) {
        r.streaming = true
        r.answer = answer
    }
}

/// Resumes a parked connection, for streams (their reader parks them).
package enum HTTPConnections {
    package static func suspend(_ c: OpaquePointer) { islet_web_suspend(c) }
    package static func resume(_ c: OpaquePointer) { islet_web_resume(c) }
    package static func fd(_ c: OpaquePointer) -> Int32 { islet_web_connection_fd(c) }
    package static func clientAddress(_ c: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard islet_web_client_address(c, &buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    package static func header(_ c: OpaquePointer, _ name: String) -> String? {
        islet_web_header(c, name).map { String(cString: $0) }
    }
    package static func cookie(_ c: OpaquePointer, _ name: String) -> String? {
        islet_web_cookie(c, name).map { String(cString: $0) }
    }
    package static func argument(_ c: OpaquePointer, _ name: String) -> String? {
        islet_web_argument(c, name).map { String(cString: $0) }
    }
    package static func headerCount(_ c: OpaquePointer) -> Int { Int(islet_web_header_count(c)) }
    package static func occurrences(_ c: OpaquePointer, _ name: String) -> Int { Int(islet_web_header_occurrences(c, name)) }
    package static func malformedHeaders(_ c: OpaquePointer) -> Int { Int(islet_web_headers_malformed(c)) }
    package static var readerEnd: Int { islet_web_reader_end() }
    package static var readerError: Int { islet_web_reader_error() }
}

/// What the server tells the part; all on the loop's thread, inside `HTTPServer.run`.
package protocol HTTPServerDelegate: AnyObject {
    func opened(_ connection: OpaquePointer)
    func closed(_ connection: OpaquePointer)
    /// The request line and headers are in (the body is not): `request.answer` set here is a
    /// refusal sent before the body is read.
    func headersIn(_ request: HTTPRequest)
    /// The request's body passed the bound: the connection is closed.
    func cut(_ request: HTTPRequest)
    /// The request is whole: answer it now (`answer`), stream it, or leave it parked and answer later.
    func serve(_ request: HTTPRequest)
    func finished(_ request: HTTPRequest)
    func log(_ message: String)
}

/// An error of the web server, in words for the log.
package struct WebError: Error, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
