import IsletConfig
import IsletSystem

/// Who may reach the page and act through it (docs/WEB.md "Security"): the names it answers
/// to (DNS rebinding), the origin of a change (cross-site requests), the password and the
/// sessions it opens, and the pace of failed logins. Pure: instants are given, not read.
package struct WebGuard {
    package let settings: WebSettings
    /// This machine's host name, lowercased ("islet"): it and `islet.local` are accepted.
    package let machineName: String
    /// The password, when `password_file` is set.
    private let password: [UInt8]?
    private var sessions: [String: MonotonicInstant] = [:]
    private var failures: [String: LoginFailures] = [:]
    /// Without a password: who may use the page (WebPeers.swift); nil when anyone may reach it.
    package var peers: PeerPolicy?

    /// A session lasts this long from its login.
    package static let sessionSeconds: Int64 = 7 * 24 * 3600
    /// At most this many sessions at once (the oldest goes first).
    package static let maximumSessions = 64
    /// Failed logins an address may make within `failureWindowMs` before it must wait.
    package static let failuresAllowed = 5
    package static let failureWindowMs: Int64 = 60_000
    /// Addresses remembered for their failures (the oldest goes first).
    package static let maximumAddresses = 256
    /// The failures of all addresses together (a client that changes its address each try
    /// escapes the per-address limit): a budget of `budgetFailures` wrong passwords that comes
    /// back at one per `budgetRefillMs`. While it is empty no password is checked, the right one
    /// included; once the guessing stops the next login is checked within `budgetRefillMs`.
    package static let budgetFailures: Int64 = 10
    package static let budgetRefillMs: Int64 = 10_000
    /// Addresses counted per guessing episode (the count says "or more" past it).
    package static let maximumEpisodeAddresses = 1024

    /// The shared budget, in milliseconds of refill (`budgetRefillMs` per failure), as of `budgetAt`.
    private var budgetMs = Self.budgetFailures * Self.budgetRefillMs
    private var budgetAt: MonotonicInstant?
    /// The run of failures since the budget was last full; logged when it emptied the budget.
    private var episode: GuessingEpisode?

    /// Failed logins from the time the shared budget was last full until it is full again.
    package struct GuessingEpisode: Equatable {
        package var since: MonotonicInstant
        /// Passwords checked and found wrong, and logins refused unchecked (429) meanwhile.
        package var wrong = 0
        package var refused = 0
        package var addresses: Set<String> = []
        /// More addresses than `maximumEpisodeAddresses` tried.
        package var moreAddresses = false
        /// The budget ran out in this episode (only then is it worth a journal line).
        package var exhausted = false

        package var tries: Int { wrong + refused }
        package var addressCount: String { moreAddresses ? "\(addresses.count) or more" : "\(addresses.count)" }

        mutating func note(_ address: String) {
            if addresses.count < WebGuard.maximumEpisodeAddresses { addresses.insert(address) }
            else if !addresses.contains(address) { moreAddresses = true }
        }
    }

    struct LoginFailures {
        var count: Int
        var since: MonotonicInstant
        /// This episode was logged (one line per episode).
        var logged = false
    }

    package init(settings: WebSettings, machineName: String, password: String?) {
        self.settings = settings
        self.machineName = machineName.lowercased()
        self.password = password.map { Array($0.utf8) }
    }

    package var needsLogin: Bool { password != nil }

    // MARK: names and origins

    /// Whether `host` (a request's Host header, with or without a port) names this page: an
    /// address literal, localhost, the machine's name (and `.local`), or a configured name.
    /// Anything else is a page that a DNS name of someone else's now points here.
    package func acceptsHost(_ host: String?) -> Bool {
        guard let host, !host.isEmpty, host.utf8.count <= 260 else { return false }
        let name: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[host.index(after: host.startIndex)..<close]
            // After the bracket: nothing, or a port (found by the web fuzz target: "[a::]\t]…").
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && Self.isPort(rest.dropFirst())) else { return false }
            return ListenAddress.isIPv6Literal(name)
        }
        if let colon = host.lastIndex(of: ":") {
            guard Self.isPort(host[host.index(after: colon)...]) else { return false }
            name = host[..<colon]
        } else {
            name = host[...]
        }
        let n = name.lowercased()
        if ListenAddress.isIPv4Literal(n) { return true }
        if n == "localhost" || n == "localhost.localdomain" { return true }
        if !machineName.isEmpty, n == machineName || n == machineName + ".local" { return true }
        return settings.hostnames.contains(n)
    }

    private static func isPort(_ s: Substring) -> Bool {
        (1...5).contains(s.count) && s.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Whether a change may come from `origin` (the Origin header) for a page reached at `host`:
    /// the same scheme, host and port. No Origin is a client that is not a browser (curl,
    /// scripts); browsers send one with every POST, so a cross-site page cannot leave it out.
    package func acceptsOrigin(_ origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host else { return false }
        return origin.lowercased() == (settings.tls ? "https://" : "http://") + host.lowercased()
    }

    // MARK: the password and sessions

    /// The outcome of a login.
    package enum Login: Equatable {
        case accepted(token: String)
        case refused
        /// Too many failures from this address: try again after `seconds`.
        case limited(seconds: Int)
        /// Too many failures from all addresses together: every login waits `seconds`.
        case guessing(seconds: Int)
    }

    /// Checks `attempt` from `address`; a new session on success. `firstOfEpisode` tells the
    /// caller to log (once per address per episode for `.limited`, once per guessing episode
    /// for `.guessing`; never the password).
    package mutating func login(_ attempt: [UInt8], from address: String, at mono: MonotonicInstant,
                                token: () throws(SystemError) -> String) -> (Login, firstOfEpisode: Bool) {
        refill(at: mono)
        if var f = failures[address] {
            if mono.nanoseconds(since: f.since) / 1_000_000 >= Self.failureWindowMs {
                failures[address] = nil
            } else if f.count >= Self.failuresAllowed {
                let left = (Self.failureWindowMs - mono.nanoseconds(since: f.since) / 1_000_000 + 999) / 1000
                let first = !f.logged
                f.logged = true
                failures[address] = f
                if var e = episode {
                    e.note(address)
                    e.refused += 1
                    episode = e
                }
                return (.limited(seconds: Int(max(1, left))), first)
            }
        }
        // The shared budget is checked before the password: while it is empty a guess, right or
        // wrong, learns nothing.
        guard budgetMs >= Self.budgetRefillMs else {
            var e = episode ?? GuessingEpisode(since: mono)
            e.note(address)
            e.refused += 1
            let first = !e.exhausted
            e.exhausted = true
            episode = e
            return (.guessing(seconds: Int(max(1, (Self.budgetRefillMs - budgetMs + 999) / 1000))), first)
        }
        guard let password, Self.equal(attempt, password) else {
            budgetMs -= Self.budgetRefillMs
            var e = episode ?? GuessingEpisode(since: mono)
            e.note(address)
            e.wrong += 1
            episode = e
            if failures[address] == nil, failures.count >= Self.maximumAddresses,
               let oldest = failures.min(by: { $0.value.since < $1.value.since })?.key {
                failures[oldest] = nil
            }
            failures[address, default: LoginFailures(count: 0, since: mono)].count += 1
            return (.refused, false)
        }
        failures[address] = nil
        guard let t = try? token() else { return (.refused, false) }
        if sessions.count >= Self.maximumSessions, let oldest = sessions.min(by: { $0.value < $1.value })?.key {
            sessions[oldest] = nil
        }
        sessions[t] = mono
        return (.accepted(token: t), false)
    }

    /// The budget back by the time passed since it was last looked at (up to full).
    private mutating func refill(at mono: MonotonicInstant) {
        if let at = budgetAt {
            let passed = max(0, mono.nanoseconds(since: at) / 1_000_000)
            budgetMs = min(Self.budgetFailures * Self.budgetRefillMs, budgetMs + passed)
        }
        budgetAt = mono
    }

    /// When the episode under way ends if no one fails again (the budget is full): the caller's
    /// deadline for `endEpisode`.
    package var episodeEnds: MonotonicInstant? {
        guard episode != nil, let at = budgetAt else { return nil }
        return at.adding(milliseconds: Self.budgetFailures * Self.budgetRefillMs - budgetMs)
    }

    /// The episode that is over by `mono` (the budget is full again), once; the caller logs it
    /// when it `exhausted` the budget. nil while it goes on, or with none.
    package mutating func endEpisode(at mono: MonotonicInstant) -> GuessingEpisode? {
        guard episode != nil else { return nil }
        refill(at: mono)
        guard budgetMs >= Self.budgetFailures * Self.budgetRefillMs else { return nil }
        defer { episode = nil }
        return episode
    }

    /// Whether `token` (the session cookie) is a live session (an expired one stays in the
    /// table until a login needs its room: the table is bounded either way).
    package func admits(_ token: String?, at mono: MonotonicInstant) -> Bool {
        guard password != nil else { return true }
        guard let token, token.utf8.count == 64, let opened = sessions[token] else { return false }
        return mono.nanoseconds(since: opened) / 1_000_000_000 < Self.sessionSeconds
    }

    /// When `token`'s session ends by itself; nil when it is not a session (any more).
    package func expiry(of token: String) -> MonotonicInstant? {
        sessions[token].map { $0.adding(milliseconds: Self.sessionSeconds * 1000) }
    }

    package mutating func logout(_ token: String?) {
        if let token { sessions[token] = nil }
    }

    package var sessionCount: Int { sessions.count }

    /// Equal bytes in a time that depends only on the lengths: the comparison tells an attacker
    /// nothing about how much of a guess was right.
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0xFF)
        }
        return diff == 0
    }

    /// A session token: 256 bits from the kernel, as 64 hex digits.
    package static func newToken() throws(SystemError) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in try Entropy.bytes(32) {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The cookie that carries a session (or ends one, with an empty token).
    package func cookie(_ token: String) -> String {
        let age = token.isEmpty ? 0 : Self.sessionSeconds
        return "islet_session=\(token); Path=/; Max-Age=\(age); HttpOnly; SameSite=Strict" + (settings.tls ? "; Secure" : "")
    }
}
