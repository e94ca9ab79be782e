import Testing
import IsletSystem
import IsletConfig
@testable import IsletWeb

/// Who may reach the page and act through it: names, origins, the password, sessions and the
/// pace of failed logins (docs/WEB.md "Security"), decided without a clock or a socket.
@Suite("the web page's guard")
struct WebGuardTests {
    static func guardFor(password: String? = "hunter22", hostnames: [String] = [], tls: Bool = false) -> WebGuard {
        var s = WebSettings()
        s.hostnames = hostnames
        if tls { s.certFile = "/c.pem"; s.keyFile = "/k.pem" }
        return WebGuard(settings: s, machineName: "Desk", password: password)
    }

    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)

    @Test("a Host is an address literal, localhost, this machine's name or a configured name: anything else is a rebinding")
    func hosts() {
        let g = Self.guardFor(hostnames: ["islet.example.net"])
        for ok in ["127.0.0.1:8080", "192.168.1.20", "[::1]:8080", "[fe80::1]", "localhost:8080", "desk", "DESK.local:8080",
                   "islet.example.net", "Islet.Example.Net:443"] {
            #expect(g.acceptsHost(ok), "\(ok) refused")
        }
        for bad in [nil, "", "evil.example", "evil.example:8080", "desk.evil.example", "127.0.0.1.evil.example", "[evil]:80",
                    "localhost:80a", "127.0.0.1:123456", "desk.localx", "[::1", String(repeating: "a", count: 300),
                    "[a::]\t]\u{1}x", "[::1]x", "[::1]:", "[::1]:80:80", "desk:"] {
            #expect(!g.acceptsHost(bad), "\(bad ?? "nil") accepted")
        }
    }

    @Test("a change from a browser must carry this page's own origin, scheme included")
    func origins() {
        let g = Self.guardFor()
        #expect(g.acceptsOrigin("http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(g.acceptsOrigin(nil, host: "127.0.0.1:8080"), "curl sends no Origin and is no cross-site page")
        #expect(!g.acceptsOrigin("http://evil.example", host: "127.0.0.1:8080"))
        #expect(!g.acceptsOrigin("https://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(!g.acceptsOrigin("null", host: "127.0.0.1:8080"), "a sandboxed frame's opaque origin")
        #expect(!g.acceptsOrigin("http://127.0.0.1:8080", host: nil))
        #expect(Self.guardFor(tls: true).acceptsOrigin("https://desk.local:8443", host: "desk.local:8443"))
        #expect(!Self.guardFor(tls: true).acceptsOrigin("http://desk.local:8443", host: "desk.local:8443"))
    }

    @Test("the right password opens a session of 256 random bits; a wrong one does not")
    func login() throws {
        var g = Self.guardFor()
        #expect(!g.admits(nil, at: Self.t0))
        let wrong = g.login(Array("hunter2".utf8), from: "192.0.2.7", at: Self.t0, token: { () throws(SystemError) in "x" })
        #expect(wrong.0 == .refused)
        let right = g.login(Array("hunter22".utf8), from: "192.0.2.7", at: Self.t0, token: { () throws(SystemError) in try WebGuard.newToken() })
        guard case .accepted(let token) = right.0 else { Issue.record("not accepted: \(right.0)"); return }
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(try WebGuard.newToken() != WebGuard.newToken(), "tokens come from the kernel, not a counter")
        #expect(g.admits(token, at: Self.t0.adding(milliseconds: 1000)))
        #expect(!g.admits(String(token.reversed()), at: Self.t0))
        // A session ends after its week, and at logout.
        #expect(!g.admits(token, at: Self.t0.adding(milliseconds: WebGuard.sessionSeconds * 1000)))
        let again = g.login(Array("hunter22".utf8), from: "192.0.2.7", at: Self.t0, token: { () throws(SystemError) in try WebGuard.newToken() })
        guard case .accepted(let t2) = again.0 else { Issue.record("not accepted"); return }
        g.logout(t2)
        #expect(!g.admits(t2, at: Self.t0))
    }

    @Test("five wrong passwords from one address make it wait a minute, logged once; other addresses are not held")
    func failedLogins() {
        var g = Self.guardFor()
        let token = { () throws(SystemError) -> String in "t" + String(repeating: "0", count: 63) }
        for i in 0..<WebGuard.failuresAllowed {
            #expect(g.login(Array("guess\(i)".utf8), from: "192.0.2.9", at: Self.t0, token: token).0 == .refused)
        }
        let held = g.login(Array("hunter22".utf8), from: "192.0.2.9", at: Self.t0.adding(milliseconds: 1000), token: token)
        #expect(held.0 == .limited(seconds: 59), "even the right password waits: \(held.0)")
        #expect(held.firstOfEpisode)
        #expect(!g.login(Array("x".utf8), from: "192.0.2.9", at: Self.t0.adding(milliseconds: 2000), token: token).firstOfEpisode)
        #expect(g.login(Array("hunter22".utf8), from: "192.0.2.10", at: Self.t0, token: token).0 != .refused)
        let later = g.login(Array("hunter22".utf8), from: "192.0.2.9", at: Self.t0.adding(milliseconds: WebGuard.failureWindowMs), token: token)
        if case .accepted = later.0 {} else { Issue.record("still held after the window: \(later.0)") }
    }

    @Test("an attacker with many addresses cannot grow the memory of failures or sessions without bound")
    func bounded() {
        var g = Self.guardFor()
        var n = 0
        let token = { () throws(SystemError) -> String in n += 1; return String(repeating: "a", count: 60) + String(1000 + n) }
        for i in 0..<2000 {
            _ = g.login(Array("nope".utf8), from: "10.0.\(i / 256).\(i % 256)", at: Self.t0.adding(milliseconds: Int64(i)), token: token)
        }
        // After the shared budget is back (the failures above emptied it).
        let later = Self.t0.adding(milliseconds: 200_000)
        for i in 0..<200 { _ = g.login(Array("hunter22".utf8), from: "10.1.0.\(i % 250)", at: later.adding(milliseconds: Int64(i)), token: token) }
        #expect(g.sessionCount == WebGuard.maximumSessions)
        let failures = Mirror(reflecting: g).children.first { $0.label == "failures" }.map { Mirror(reflecting: $0.value).children.count }
        #expect((failures ?? .max) <= WebGuard.maximumAddresses)
    }

    /// Issue 44 §10: a client that changed its source address at each try guessed 45 passwords
    /// a second; the per-address limit never saw a second failure.
    @Test("failures from many addresses share one budget: 10, then one per 10 s; every login waits while it is empty")
    func rotatingAddresses() {
        var g = Self.guardFor()
        let token = { () throws(SystemError) -> String in String(repeating: "b", count: 64) }
        var t = Self.t0
        var checked = 0
        var first: [Bool] = []
        var waits: [Int] = []
        // An hour of 45 tries a second, each from a new address.
        for i in 0..<(45 * 3600) {
            t = Self.t0.adding(milliseconds: Int64(i) * 1000 / 45)
            let (outcome, isFirst) = g.login(Array("guess \(i)".utf8), from: "10.\(i >> 16 & 255).\(i >> 8 & 255).\(i & 255)", at: t, token: token)
            switch outcome {
            case .refused: checked += 1
            case .guessing(let s): waits.append(s); if isFirst { first.append(true) }
            default: Issue.record("try \(i): \(outcome)"); return
            }
        }
        // 10 at once, then one each 10 s: 10 + 360 in the hour (45 × 3600 = 162,000 before).
        #expect(checked <= Int(WebGuard.budgetFailures) + 3600 / Int(WebGuard.budgetRefillMs / 1000) + 1, "\(checked) passwords checked in an hour")
        #expect(checked >= 360)
        #expect(first.count == 1, "the episode's start is logged once, not per try")
        #expect(waits.allSatisfy { (1...10).contains($0) }, "Retry-After within the refill: \(Set(waits))")
        // The right password during the attack learns nothing: refused unchecked.
        if case .guessing = g.login(Array("hunter22".utf8), from: "192.0.2.1", at: t, token: token).0 {} else {
            Issue.record("the right password was checked while the budget was empty")
        }
        #expect(g.endEpisode(at: t) == nil, "the episode goes on while the budget is empty")
        // The guessing stops: the owner is in within one refill (10 s), far inside a minute.
        let owner = g.login(Array("hunter22".utf8), from: "192.0.2.1", at: t.adding(milliseconds: WebGuard.budgetRefillMs), token: token)
        if case .accepted = owner.0 {} else { Issue.record("the owner 10 s after the guessing stopped: \(owner.0)") }
        // The episode ends when the budget is full again: its tries and addresses, once.
        let end = g.episodeEnds ?? Self.t0
        #expect(t.adding(milliseconds: 90_000) < end && end <= t.adding(milliseconds: 100_000), "\(end)")
        #expect(g.endEpisode(at: t.adding(milliseconds: 50_000)) == nil)
        guard let e = g.endEpisode(at: t.adding(milliseconds: 100_000)) else { Issue.record("no episode at the end"); return }
        #expect(e.exhausted && e.wrong == checked && e.tries == 45 * 3600 + 1)
        #expect(e.addressCount == "\(WebGuard.maximumEpisodeAddresses) or more", "the address set is bounded: \(e.addressCount)")
        #expect(g.endEpisode(at: t.adding(milliseconds: 200_000)) == nil, "logged once")
    }

    @Test("an owner's typo is no episode, and a burst of 10 from 10 addresses empties the budget with the count of addresses")
    func episodes() {
        var g = Self.guardFor()
        let token = { () throws(SystemError) -> String in String(repeating: "c", count: 64) }
        #expect(g.login(Array("typo".utf8), from: "192.0.2.1", at: Self.t0, token: token).0 == .refused)
        if case .accepted = g.login(Array("hunter22".utf8), from: "192.0.2.1", at: Self.t0.adding(milliseconds: 2000), token: token).0 {} else {
            Issue.record("the owner after one typo")
        }
        let typo = g.endEpisode(at: Self.t0.adding(milliseconds: 10_000))
        #expect(typo?.exhausted == false, "one typo ends without a journal line: \(String(describing: typo))")
        let t1 = Self.t0.adding(milliseconds: 100_000)
        for i in 0..<10 { #expect(g.login(Array("g\(i)".utf8), from: "127.0.0.\(2 + i % 7)", at: t1, token: token).0 == .refused) }
        let held = g.login(Array("hunter22".utf8), from: "127.0.0.1", at: t1, token: token)
        #expect(held.0 == .guessing(seconds: 10) && held.firstOfEpisode)
        let e = g.endEpisode(at: t1.adding(milliseconds: 100_000))
        #expect(e?.tries == 11 && e?.wrong == 10 && e?.addressCount == "8", "\(String(describing: e))")
    }

    @Test("passwords compare in full whatever the first difference")
    func constantTime() {
        #expect(WebGuard.equal(Array("abc".utf8), Array("abc".utf8)))
        #expect(!WebGuard.equal(Array("abc".utf8), Array("abd".utf8)))
        #expect(!WebGuard.equal(Array("ab".utf8), Array("abc".utf8)))
        #expect(!WebGuard.equal(Array("abc".utf8), Array("ab".utf8)))
        #expect(!WebGuard.equal([], Array("a".utf8)))
        #expect(!WebGuard.equal([0xFF], []), "a missing byte never matches, even 0xFF")
    }

    @Test("the session cookie: HttpOnly, SameSite=Strict, an expiry, and Secure under HTTPS only")
    func cookie() {
        let plain = Self.guardFor().cookie("abc")
        #expect(plain.contains("HttpOnly") && plain.contains("SameSite=Strict") && plain.contains("Max-Age=604800"))
        #expect(!plain.contains("Secure"))
        #expect(Self.guardFor(tls: true).cookie("abc").hasSuffix("; Secure"))
        #expect(Self.guardFor().cookie("").contains("Max-Age=0"), "logout expires it")
    }
}
