import Foundation
import IsletCore
import IsletDaemon
import IsletSystem
import Testing
import IsletClock
import IsletStore
import IsletTestSupport

/// State files no request could have produced, written by hand (docs/RELIABILITY.md, "Nothing
/// in the state file can crash the daemon").
enum Untrusted {
    static let int64Max = "9223372036854775807", int64Min = "-9223372036854775808"

    static func iso(_ d: Date) -> String { ISO8601.format(Instant(milliseconds: Int64(d.timeIntervalSince1970 * 1000))) }
    static var now: String { iso(Date()) }
    static var bootID: String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A paused 10-minute countdown (its only deadline is its 8 h limit, from `started`).
    static func paused(_ timer: String = "meditation", started: String = now, cycleSeconds: String = "600",
                       cycle: String = "1", cycles: String = "1", frozen: String = "300", title: String? = nil) -> String {
        let t = title.map { #","title":\#($0)"# } ?? ""
        return #"{"attributes":{"cycle_end_seconds":3,"cycle_seconds":\#(cycleSeconds),"cycles":\#(cycles),"kind":"countdown","language":"en","timer":"\#(timer)"\#(t)},"content":{"cycle":\#(cycle),"cycles":\#(cycles),"frozen_seconds":\#(frozen),"phase":"paused","schema":1,"stale":false},"started_at":"\#(started)","updated_at":"\#(now)"}"#
    }

    static func file(_ activities: [String], savedAt: String = now, bootID: String? = Untrusted.bootID,
                     bootNs: String? = nil, offsetNs: String? = nil) -> String {
        var fields = [#""schema":1"#, #""saved_at":"\#(savedAt)""#, #""activities":[\#(activities.joined(separator: ","))]"#]
        if let bootID { fields.append(#""boot_id":"\#(bootID)""#) }
        if let bootNs { fields.append(#""boot_ns":\#(bootNs)"#) }
        if let offsetNs { fields.append(#""timeline_offset_ns":\#(offsetNs)"#) }
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    static var bootNs: String { String(SystemClock.bootNanoseconds()) }

    /// The files that trapped isletd's host clock at every start (a crash loop), by the field at fault.
    static let traps: [(field: String, text: String)] = [
        ("timeline_offset_ns", file([paused()], bootNs: bootNs, offsetNs: int64Max)),
        ("timeline_offset_ns", file([paused()], bootNs: bootNs, offsetNs: int64Min)),
        ("saved_at", file([paused()], savedAt: "2263-01-01T00:00:00.000Z", bootNs: bootNs)),
        ("saved_at", file([paused()], savedAt: "2263-06-01T00:00:00.000Z", bootID: "another-boot", bootNs: "1")),
        ("activities[0].started_at", file([paused(started: "9999-12-31T23:59:59.999Z")], bootNs: bootNs)),
    ]

    /// Files that decoded and loaded, though no request could have made them.
    static let impossible: [(field: String, text: String)] = [
        ("activities", file((0..<17).map { paused("t\($0)") })),
        ("activities[1].attributes.timer", file([paused("twice"), paused("twice", frozen: "100")])),
        ("activities[0].attributes.timer", file([paused("../../etc")])),
        ("activities[0].attributes.cycle_seconds", file([paused(cycleSeconds: "-1", frozen: "0.5")])),
        ("activities[0].content.cycle", file([paused(cycle: "0")])),
        ("activities[0].content.cycle", file([paused(cycle: "5", cycles: "1")])),
        ("activities[0].content.frozen_seconds", file([paused(frozen: "-0")])),
        ("activities[0].content.frozen_seconds", file([paused(frozen: "0")])),
        ("activities[0].attributes.title", file([paused(title: #""a\u0000b""#)])),
        ("activities[0].attributes.title", file([paused(title: #""line\nbreak""#)])),
        ("activities[0].attributes.stale_after_seconds", file([paused().replacingOccurrences(of: #""language""#, with: #""stale_after_seconds":1e300,"language""#)])),
    ]
}

@Suite("untrusted state files")
struct UntrustedStateTests {
    func load(_ text: String) throws -> (LoadedState, [String]) {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        try text.write(toFile: dir + "/activities.json", atomically: false, encoding: .utf8)
        let loaded = FileStore(directory: dir, now: { Instant.epoch }).load()
        return (loaded, try FileManager.default.contentsOfDirectory(atPath: dir).sorted())
    }

    @Test("instants and offsets the host clock cannot hold are refused by the loader, the field named, the file moved aside",
          arguments: Untrusted.traps.indices)
    func outOfRangeInstantsAreMovedAside(_ i: Int) throws {
        let (loaded, files) = try load(Untrusted.traps[i].text)
        let problem = try #require(loaded.problem, "the loader took \(Untrusted.traps[i].field)")
        #expect(problem.contains(Untrusted.traps[i].field + " ") || problem.contains(Untrusted.traps[i].field + ":"), "\(problem)")
        #expect(problem.contains("activities.json"), "the message names the file: \(problem)")
        #expect(loaded.activities.isEmpty)
        #expect(!files.contains("activities.json") && files.contains { $0.hasPrefix("activities.json.bad-") }, "\(files)")
    }

    @Test("a file no request could have produced is moved aside with the field named", arguments: Untrusted.impossible.indices)
    func impossibleStatesAreMovedAside(_ i: Int) throws {
        let (loaded, files) = try load(Untrusted.impossible[i].text)
        let problem = try #require(loaded.problem, "the loader took a file breaking \(Untrusted.impossible[i].field)")
        #expect(problem.contains(Untrusted.impossible[i].field + ":"), "\(problem)")
        #expect(loaded.activities.isEmpty)
        #expect(files.contains { $0.hasPrefix("activities.json.bad-") }, "\(files)")
    }

    @Test("the same paused timer, valid, still loads (the rules are not stricter than requests)")
    func theValidTwinLoads() throws {
        let (loaded, _) = try load(Untrusted.file([Untrusted.paused(), Untrusted.paused("sw", cycleSeconds: "60", frozen: "60", title: #""Évening""#)]))
        #expect(loaded.problem == nil)
        #expect(loaded.activities.map(\.timerID) == ["meditation", "sw"])
    }

    @Test("the host clock refuses saved figures that overflow instead of trapping")
    func hostClockArithmeticIsChecked() {
        let clock = HostClock(ManualLoopClock())
        let boot = SystemClock.bootNanoseconds()
        for offset in [Int64.max, Int64.min, -Int64.max] {
            #expect(!clock.continueTimeline(after: TimelineStamp(at: Instant(milliseconds: 1_795_000_000_000), bootNanoseconds: Int64(boot), offsetNanoseconds: offset)))
        }
        // Without an offset, saved_at × 10⁶ overflows past 2262: refused, not trapped on.
        let late = ISO8601.parse("2263-01-01T00:00:00.000Z")!
        #expect(!clock.continueTimeline(after: TimelineStamp(at: late, bootNanoseconds: 1, offsetNanoseconds: nil)))
        #expect(abs(clock.now().milliseconds - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000, "the timeline was left as it was")
        // A deadline past the nanosecond clock's end is never reached; one before boot has passed.
        #expect(clock.monotonicInstant(of: ISO8601.parse("9999-12-31T23:59:59.999Z")!) == MonotonicInstant(nanoseconds: .max))
        #expect(clock.monotonicInstant(of: Instant(milliseconds: .min)) <= clock.monotonicInstant(of: clock.now()))
    }
}

@Suite("titles with control characters")
struct ControlCharacterTitleTests {
    @Test("a start whose title holds a NUL or another control character is refused, the title named",
          arguments: ["a\u{0}b", "bell\u{7}", "new\nline", "csi\u{9B}"])
    func aControlCharacterInATitleIsRefused(_ title: String) {
        var book = ActivityBook()
        let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(60), cycles: 1), title: title)
        #expect(throws: Rejection.self) { _ = try book.apply(.start(attrs), timer: nil, now: Instant(milliseconds: 1_796_256_000_000)) }
        #expect(book.activities.isEmpty)
        do { _ = try attrs.validated() } catch {
            #expect(error.code == .invalidAttributes && error.message.contains("title"), "\(error)")
        }
    }
}

@Suite("restored activities catch up within their 8 h")
struct CatchUpBoundTests {
    @Test("an activity whose reference or update precedes its start is refused, the field named (a restore would catch up months of cycles)")
    func nothingPrecedesTheStart() throws {
        let running = #"{"attributes":{"cycle_end_seconds":0,"cycle_seconds":1,"cycles":0,"kind":"countdown","language":"en","timer":"m"},"content":{"cycle":1,"cycles":null,"phase":"running","reference":"2026-06-02T00:00:00.000Z","schema":1,"stale":false},"started_at":"2026-12-02T00:00:00.000Z","updated_at":"2026-12-02T00:00:00.000Z"}"#
        let early = Untrusted.paused(started: "2026-12-03T00:00:00.000Z").replacingOccurrences(of: #""updated_at":""#, with: #""updated_at":"2026-12-01T00:00:00.000Z","x":""#)
        for (text, field) in [(running, "activities[0].content.reference"), (early, "activities[0].updated_at")] {
            let decoded = FileStore.decode(Array(Untrusted.file([text], savedAt: "2026-12-03T00:00:00.000Z").utf8))
            guard case .failure(let why) = decoded else { Issue.record("took \(field)"); continue }
            #expect(why.reason.contains(field + ":"), "\(why.reason)")
        }
    }
}
