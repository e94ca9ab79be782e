import Testing
import IsletSystem
import IsletWeb

/// What one client may hold of the page (docs/WEB.md "Threat model and bounds"), as numbers.
@Suite("the page's admission")
struct WebAdmissionTests {
    static func at(_ ms: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(1_000_000_000 + ms * 1_000_000)) }

    @Test("a request is due 5 s after a connection opens, 10 s after an answer, 1 s of either near the bound")
    func deadlines() {
        #expect(WebAdmission.deadlineMs(fresh: true, open: 1) == 5_000)
        #expect(WebAdmission.deadlineMs(fresh: false, open: 1) == 10_000)
        #expect(WebAdmission.deadlineMs(fresh: true, open: 23) == 5_000)
        #expect(WebAdmission.deadlineMs(fresh: true, open: 24) == 1_000)
        #expect(WebAdmission.deadlineMs(fresh: false, open: 64) == 1_000)
    }

    @Test("one address: 40 at once, then 20 a second; another address is not held by it")
    func perAddress() {
        var a = WebAdmission()
        let taken = (0..<60).filter { _ in a.take("192.0.2.7", at: Self.at(0)) }.count
        #expect(taken == 40)
        let other = a.take("192.0.2.8", at: Self.at(0))
        #expect(other, "another address is refused because of the first")
        // Half a second later: 10 more for the first.
        let later = (0..<20).filter { _ in a.take("192.0.2.7", at: Self.at(500)) }.count
        #expect(later == 10)
    }

    @Test("every address together: 100 at once, then 50 a second")
    func inAll() {
        var a = WebAdmission()
        var taken = 0
        for i in 0..<200 where a.take("198.51.100.\(i)", at: Self.at(0)) { taken += 1 }
        #expect(taken == 100)
        var after = 0
        for i in 0..<100 where a.take("203.0.113.\(i)", at: Self.at(1_000)) { after += 1 }
        #expect(after == 50)
    }

    @Test("at most 256 addresses are remembered, whatever an attacker rotates through")
    func boundedMemory() {
        var a = WebAdmission()
        for i in 0..<5_000 { _ = a.take("10.\(i / 256).\(i % 256).1", at: Self.at(Int64(i))) }
        #expect(a.addressCount == WebAdmission.maximumAddresses)
    }
}

/// RFC 9112 §6.3 and the body's bound, from the headers alone.
@Suite("a request's framing")
struct RequestFramingTests {
    static func check(_ headers: [(String, String)], maximum: Int = 16_384) -> RequestFraming {
        RequestFraming.check(count: { name in headers.count { $0.0.lowercased() == name.lowercased() } },
                             value: { name in headers.first { $0.0.lowercased() == name.lowercased() }?.1 },
                             maximumBody: maximum)
    }

    @Test("one of each, a length within the bound, chunked alone: fine")
    func fine() {
        #expect(Self.check([("Host", "islet"), ("Content-Length", "120")]) == .fine)
        #expect(Self.check([("Host", "islet"), ("Transfer-Encoding", "chunked")]) == .fine)
        #expect(Self.check([("Host", "islet"), ("Transfer-Encoding", " Chunked ")]) == .fine)
        #expect(Self.check([("Host", "islet"), ("Content-Length", "16384")]) == .fine)
        #expect(Self.check([("Host", "islet")]) == .fine)
    }

    @Test("two Hosts, two lengths, a coding beside a length, a coding other than chunked: ambiguous")
    func ambiguous() {
        func isAmbiguous(_ f: RequestFraming) -> Bool { if case .ambiguous = f { true } else { false } }
        #expect(isAmbiguous(Self.check([("Host", "islet"), ("Host", "evil.example")])))
        #expect(isAmbiguous(Self.check([("Content-Length", "5"), ("Content-Length", "5")])))
        #expect(isAmbiguous(Self.check([("Content-Length", "5"), ("Content-Length", "6")])))
        #expect(isAmbiguous(Self.check([("Transfer-Encoding", "chunked"), ("Content-Length", "5")])))
        #expect(isAmbiguous(Self.check([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")])))
        #expect(isAmbiguous(Self.check([("Transfer-Encoding", "gzip, chunked")])))
        #expect(isAmbiguous(Self.check([("Transfer-Encoding", "identity")])))
    }

    @Test("a name that is not a token, a control character in a value, chunked in HTTP/1.0: ambiguous")
    func malformed() {
        func isAmbiguous(_ f: RequestFraming) -> Bool { if case .ambiguous = f { true } else { false } }
        let fine: [(String, String)] = [("Host", "islet")]
        func check(malformed: Int = 0, version: String = "HTTP/1.1", _ headers: [(String, String)] = fine) -> RequestFraming {
            RequestFraming.check(count: { n in headers.count { $0.0.lowercased() == n.lowercased() } },
                                 value: { n in headers.first { $0.0.lowercased() == n.lowercased() }?.1 },
                                 malformed: malformed, version: version, maximumBody: 16_384)
        }
        #expect(isAmbiguous(check(malformed: 1)))
        #expect(isAmbiguous(check(malformed: 2)))
        #expect(isAmbiguous(check(version: "HTTP/1.0", [("Transfer-Encoding", "chunked")])))
        #expect(check(version: "HTTP/1.0", [("Content-Length", "3")]) == .fine)
    }

    @Test("a length past the bound is refused from the header, a length no Int holds too")
    func tooLarge() {
        #expect(Self.check([("Content-Length", "16385")]) == .tooLarge(16_385))
        #expect(Self.check([("Content-Length", "1000000000")]) == .tooLarge(1_000_000_000))
        #expect(Self.check([("Content-Length", "99999999999999999999999")]) == .tooLarge(Int.max))
    }
}
