import IsletSettings
import IsletParts
import IsletSystem

/// How much of the page one client may hold (docs/WEB.md "Bounds"): how long a connection may
/// take to send a whole request, and how many requests an address may make. Pure: instants
/// are given, not read.
package struct WebAdmission {
    /// A new connection must have sent a whole request within this (slowloris: a client that
    /// dribbles its headers holds a slot for nothing).
    package static let firstRequestMs: Int64 = 5_000
    /// After an answer, a kept-alive connection may wait this long for its next request...
    package static let idleMs: Int64 = 10_000
    /// ...or this long once the page serves `busyConnections` or more: near the bound, an idle
    /// connection gives its slot to someone who has something to ask.
    package static let busyIdleMs: Int64 = 1_000
    package static let busyConnections = 24
    /// Requests one address may make: 20 a second, bursts of 40 (a page load is 4; a person
    /// tapping fast is a few a second). The page's own 50 a second (burst 100) bounds them all.
    package static let perAddressPerSecond: Int64 = 20
    package static let perAddressBurst: Int64 = 40
    /// Addresses remembered for their pace (the least recently seen goes first).
    package static let maximumAddresses = 256

    private var pace: [String: (limit: RateLimit, seen: MonotonicInstant)] = [:]
    /// The page's pace in all: 50 requests a second, bursts of 100.
    private var all = RateLimit(perSecond: allPerSecond, burst: allBurst)
    package static let allPerSecond: Int64 = 50
    package static let allBurst: Int64 = 100

    package init() {}

    /// How long a connection may go without a whole request: `fresh` is a connection that has
    /// sent none yet; `open` the connections the page holds now.
    package static func deadlineMs(fresh: Bool, open: Int) -> Int64 {
        if open >= busyConnections { return min(busyIdleMs, fresh ? firstRequestMs : idleMs) }
        return fresh ? firstRequestMs : idleMs
    }

    /// Takes one request's token for `address` at `mono`, then one of the page's; false: slow
    /// down. The address's own pace comes first, so one client's flood spends its own budget
    /// and not everyone's.
    package mutating func take(_ address: String, at mono: MonotonicInstant) -> Bool {
        if pace[address] == nil, pace.count >= Self.maximumAddresses,
           let oldest = pace.min(by: { $0.value.seen < $1.value.seen })?.key {
            pace[oldest] = nil
        }
        var entry = pace[address] ?? (RateLimit(perSecond: Self.perAddressPerSecond, burst: Self.perAddressBurst), mono)
        let ok = entry.limit.take(at: mono)
        entry.seen = mono
        pace[address] = entry
        return ok && all.take(at: mono)
    }

    package var addressCount: Int { pace.count }
}

/// The framing checks RFC 9112 asks of a server before it reads a body (§6.3): a request that
/// two parsers could split differently is refused, never guessed at.
package enum RequestFraming: Equatable {
    case fine
    /// 400: two Host headers, two Content-Lengths, Transfer-Encoding beside Content-Length, or a
    /// transfer coding other than chunked.
    case ambiguous(String)
    /// 413: the Content-Length is over the bound; refused before a byte of the body is read.
    case tooLarge(Int)

    /// `count(name)`: how many times the header is present; `value(name)`: the first one's value;
    /// `malformed`: 1 when a header's name is not a token (a space before its colon), 2 when a
    /// value holds a control character (a bare CR); `version`: the request line's.
    package static func check(count: (String) -> Int, value: (String) -> String?, malformed: Int = 0, version: String = "HTTP/1.1",
                              maximumBody: Int) -> RequestFraming {
        if malformed == 1 { return .ambiguous("a header name that is not a token (whitespace before its colon?)") }
        if malformed != 0 { return .ambiguous("a control character in a header's value") }
        if count("Host") > 1 { return .ambiguous("two Host headers") }
        let lengths = count("Content-Length"), codings = count("Transfer-Encoding")
        if lengths > 1 { return .ambiguous("two Content-Length headers") }
        if codings > 1 { return .ambiguous("two Transfer-Encoding headers") }
        // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
        if codings == 1, version != "HTTP/1.1" { return .ambiguous("Transfer-Encoding in an \(version.prefix(16)) request") }
        if codings == 1 {
            if lengths == 1 { return .ambiguous("both Transfer-Encoding and Content-Length") }
            let coding = (value("Transfer-Encoding") ?? "").trimmingSpaces.lowercased()
            if coding != "chunked" { return .ambiguous("the transfer coding \(coding.prefix(40)) (only chunked is taken)") }
        }
        if lengths == 1, let text = value("Content-Length") {
            let t = text.trimmingSpaces
            // Digits only (libmicrohttpd refuses the rest itself); a length too long for an Int is too large.
            if !t.isEmpty, t.utf8.allSatisfy({ (48...57).contains($0) }) {
                guard let n = Int(t) else { return .tooLarge(Int.max) }
                if n > maximumBody { return .tooLarge(n) }
            }
        }
        return .fine
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
