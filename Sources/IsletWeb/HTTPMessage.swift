import IsletSystem

/// One request on one connection, from its headers to its answer.
package final class HTTPRequest {
    /// The body a request may have (a control request is far smaller).
    package static let maximumBody = 16 * 1024

    let connection: OpaquePointer
    package let method: String
    /// The path and query as sent ("/api/frame.png?scale=4").
    package let target: String
    package var body: [UInt8] = []
    package var bodyTooLarge = false
    /// The answer, once known; the server queues it at its next call.
    package internal(set) var answer: HTTPAnswer?
    /// Waiting for the end of the turn (libmicrohttpd does not call it meanwhile).
    var parked = false
    var served = false
    var streaming = false
    var done = false
    /// The part's own state for the request (the answer it waits for, the stream it feeds).
    package var context: AnyObject?

    /// "HTTP/1.1", "HTTP/1.0".
    package let version: String

    init(connection: OpaquePointer, method: String, target: String, version: String) {
        self.connection = connection
        self.method = method
        self.target = target
        self.version = version
    }

    package var path: String { String(target.prefix { $0 != "?" }) }
    package func header(_ name: String) -> String? { HTTPConnections.header(connection, name) }
    /// How many times a header is present (the lookup above sees only the first).
    package func occurrences(_ name: String) -> Int { HTTPConnections.occurrences(connection, name) }
    /// 0, or 1 for a header name that is not a token, 2 for a value with a control character.
    package var malformedHeaders: Int { HTTPConnections.malformedHeaders(connection) }
    package func cookie(_ name: String) -> String? { HTTPConnections.cookie(connection, name) }
    package func argument(_ name: String) -> String? { HTTPConnections.argument(connection, name) }
    package var clientAddress: String { HTTPConnections.clientAddress(connection) ?? "unknown" }
    package var connectionKey: OpaquePointer { connection }
}

/// An answer: status, headers and bytes, or a stream that stays open.
package struct HTTPAnswer {
    package enum Body {
        case bytes([UInt8])
        case stream(EventStream)
    }

    package var status: Int
    package var headers: [(String, String)]
    package var body: Body

    package init(status: Int, headers: [(String, String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A stream of Server-Sent Events on one connection: bytes queue here and go out as the
/// socket takes them; with nothing queued the connection is parked (no wake-ups), and a new
/// event resumes it. A reader that falls `maximumQueued` bytes behind is dropped.
package final class EventStream {
    package static let maximumQueued = 256 * 1024

    let connection: OpaquePointer
    private var queued: [UInt8] = []
    private var sent = 0
    private var parked = false
    package private(set) var ended = false
    /// The stream's first message (`state`) is not out yet: later events wait behind it.
    package var awaitingFirst = true
    /// The session it was opened with (nil on a page without a password): it ends with it.
    package var session: String?
    package private(set) var bytesSent = 0

    package init(connection: OpaquePointer) { self.connection = connection }

    package var backlog: Int { queued.count - sent }

    /// Queues `bytes`; false when the reader is too far behind (the caller drops it).
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        guard !ended else { return false }
        if sent > 0, sent == queued.count {
            queued.removeAll(keepingCapacity: true)
            sent = 0
        }
        guard backlog + bytes.count <= Self.maximumQueued else { return false }
        queued += bytes
        wake()
        return true
    }

    /// Ends the stream: what is queued goes, then the connection closes.
    package func end() {
        guard !ended else { return }
        ended = true
        wake()
    }

    private func wake() {
        if parked {
            parked = false
            HTTPConnections.resume(connection)
        }
    }

    /// libmicrohttpd's content reader: what is queued, or park until there is more.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        let n = min(max, backlog)
        if n > 0 {
            queued.withUnsafeBufferPointer { src in
                UnsafeMutableRawPointer(buffer).copyMemory(from: src.baseAddress! + sent, byteCount: n)
            }
            sent += n
            bytesSent += n
            return n
        }
        if ended { return HTTPConnections.readerEnd }
        parked = true
        HTTPConnections.suspend(connection)
        return 0
    }
}
