import Testing
import IsletCore
import IsletProtocol
@testable import isletctl
#if canImport(Glibc)
import Glibc
#endif

/// `isletctl start --until …` and `isletctl update …` (README.md, "isletctl"): what the person
/// types becomes the request the daemon documents.
@Suite struct UntilCommandLineTests {
    // 2026-12-06T12:00:00Z.
    let now = Instant(milliseconds: 1_796_558_400_000)

    @Test func startUntilSendsKindUntilWithItsContent() throws {
        let p = try CtlMain.parse("start", ["--until", "+25", "--title", "Laundry", "--icon", "laundry", "--text", "Washing",
                                            "--progress", "10%", "--timer", "laundry", "--stale-after-seconds", "900"], now: now)
        let r = p.request
        #expect(r.op == .verb(.start) && r.timer == "laundry")
        #expect(r.start.until == PushedContent(endsAt: now + .seconds(1500), progress: 0.1, text: "Washing"))
        #expect(r.start.icon == .named("laundry") && r.start.title == "Laundry" && r.start.staleAfterSeconds == 900)
        // It parses back on the daemon's side as kind until.
        let back = try ControlRequest.parse(Array(r.encodedLine().dropLast()))
        #expect(back.start.attributes(timer: back.timer, defaults: SessionDefaults()).kind.isUntil)
    }

    @Test func anISOInstantIsTakenAsIs() throws {
        let p = try CtlMain.parse("start", ["--until", "2026-12-06T14:05:00Z"], now: now)
        #expect(p.request.start.until?.endsAt == Instant(milliseconds: 1_796_565_900_000))
        // Every RFC 3339 form the daemon reads, an offset included (14:05Z is 15:05 at +01:00).
        for text in ["2026-12-06T15:05:00+01:00", "2026-12-06t14:05:00z", "2026-12-06T14:05:00.000-00:00"] {
            let q = try CtlMain.parse("update", ["--timer", "laundry", "--until", text], now: now)
            #expect(q.request.update.endsAt == .set(Instant(milliseconds: 1_796_565_900_000)), "\(text)")
        }
        #expect(throws: CtlMain.Usage.self) { try CtlMain.parse("update", ["--until", "2026-12-06T14:05:00+0100"], now: now) }
    }

    @Test func aLocalTimeIsItsNextOccurrenceInTheHostsZone() throws {
        let p = try CtlMain.parse("start", ["--until", "14:05"], now: now)
        let end = try #require(p.request.start.until?.endsAt)
        #expect(end > now && end <= now + .seconds(25 * 3600))
        // glibc's own reading of the instant gives back 14:05:00 local.
        var t = time_t(end.milliseconds / 1000)
        var tm = Glibc.tm()
        _ = localtime_r(&t, &tm)
        #expect(tm.tm_hour == 14 && tm.tm_min == 5 && tm.tm_sec == 0)
    }

    @Test func updateSetsClearsAndAlerts() throws {
        let p = try CtlMain.parse("update", ["--timer", "laundry", "--until", "+5", "--text", "Spinning", "--clear", "progress", "--alert"], now: now)
        #expect(p.request.op == .verb(.update))
        #expect(p.request.update == ContentUpdate(endsAt: .set(now + .seconds(300)), progress: .clear, text: .set("Spinning"), alert: true))
    }

    @Test(arguments: [
        ("start", ["--text", "x"]),                         // no --until: not an until start
        ("start", ["--until", "25:00"]),
        ("start", ["--until", "soon"]),
        ("start", ["--until", "+99999"]),
        ("start", ["--stopwatch", "--until", "+5"]),
        ("update", ["--clear", "title"]),
        ("update", ["--progress", "half"]),
        ("pause", ["--alert"]),
        ("end", ["--until", "+5"]),
    ])
    func mistakesAreUsageErrors(_ command: String, _ args: [String]) {
        #expect(throws: CtlMain.Usage.self) { try CtlMain.parse(command, args, now: now) }
    }
}
