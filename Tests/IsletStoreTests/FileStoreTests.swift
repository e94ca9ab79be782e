import IsletNetwork
import Foundation
import IsletCore
import IsletSync
import Testing
import IsletStore
import IsletTestSupport

@Suite("atomic file store")
struct FileStoreTests {
    let t0 = Instant(milliseconds: 1_795_000_000_000)

    func sample() throws -> [Activity] {
        let run = try TimerMachine.apply(.start(ActivityAttributes(timerID: "a", kind: .countdown(cycle: .seconds(60), cycles: 2))), to: nil, now: t0).activity
        var paused = try TimerMachine.apply(.start(ActivityAttributes(timerID: "b", kind: .stopwatch)), to: nil, now: t0).activity
        paused = try TimerMachine.apply(.pause, to: paused, now: t0 + .milliseconds(12_345)).activity
        return [run, paused].compactMap { $0 }
    }

    @Test("what is saved loads back equal, with the save instant")
    func roundTrip() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let saveAt = t0 + .seconds(5)
        let store = FileStore(directory: dir, now: { saveAt })
        let acts = try sample()
        try store.saveNow(acts)
        let loaded = FileStore(directory: dir, now: { saveAt }).load()
        #expect(loaded.problem == nil)
        #expect(loaded.activities == acts)
        #expect(loaded.savedAt == saveAt)
        #expect(!FileManager.default.fileExists(atPath: dir + "/activities.json.tmp"), "no temp file is left behind")
        let text = try String(contentsOfFile: dir + "/activities.json", encoding: .utf8)
        #expect(text.contains("\"schema\":1"), "the file carries its schema version")
    }

    @Test("the sync group's ledger is saved with the activities, and its clock never goes back after a restart")
    func syncLedgerRoundTrip() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let acts = try sample()
        var ledger = SyncLedger(device: "bed")
        let made = ledger.record("a", activity: acts[0], now: t0 + .seconds(5))
        let store = FileStore(directory: dir, now: { self.t0 + .seconds(5) })
        try store.saveNow(acts, slices: [SavedLedger.key: SavedLedger(ledger: ledger)])
        let loaded = FileStore(directory: dir, now: { self.t0 + .seconds(5) }, slices: [SavedLedger.self]).load()
        #expect(loaded.problem == nil)
        var back = try #require((loaded.slices[SavedLedger.key] as? SavedLedger)?.ledger)
        #expect(back == ledger)
        // After a restart with the wall clock an hour behind (no RTC, before NTP), the next
        // revision is still later than the saved one.
        let next = back.record("a", activity: nil, now: t0 - .seconds(3600))
        #expect(next.revision > made.revision)
        // A file without the key (no [sync], or an older version) has none.
        try store.saveNow(acts)
        #expect(FileStore(directory: dir, now: { self.t0 }, slices: [SavedLedger.self]).load().slices.isEmpty)
    }

    @Test("a state file whose sync record breaks a rule is moved aside, naming it")
    func badSyncLedger() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        var ledger = SyncLedger(device: "bed")
        _ = ledger.record("a", activity: nil, now: t0)
        let store = FileStore(directory: dir, now: { self.t0 })
        try store.saveNow([], slices: [SavedLedger.key: SavedLedger(ledger: ledger)])
        let path = dir + "/activities.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: "\"timer\":\"a\"", with: "\"timer\":\"a b\"").write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = FileStore(directory: dir, now: { self.t0 }, slices: [SavedLedger.self]).load()
        let problem = try #require(loaded.problem)
        #expect(problem.contains("sync") && problem.contains("a b"), "\(problem)")
        #expect(loaded.slices.isEmpty && loaded.activities.isEmpty)
    }

    @Test("a key twice, or a schema that is not a whole number, makes the file unusable, named")
    func ambiguousFiles() {
        let activity = #"{"attributes":{"timer":"a","kind":"countdown","cycle_seconds":60,"cycles":1},"phase":"running"}"#
        for (text, reason) in [
            (#"{"schema":1,"saved_at":"2026-01-01T00:00:00Z","activities":[],"activities":[\#(activity)]}"#, "\"activities\" appears twice"),
            (#"{"schema":1,"schema":3,"saved_at":"2026-01-01T00:00:00Z","activities":[]}"#, "\"schema\" appears twice"),
            (#"{"schema":"1","saved_at":"2026-01-01T00:00:00Z","activities":[]}"#, "schema is not a whole number"),
            (#"{"schema":1.5,"saved_at":"2026-01-01T00:00:00Z","activities":[]}"#, "schema is not a whole number"),
            (#"[1]"#, "not a JSON object"),
        ] {
            guard case .failure(let why) = FileStore.decode(Array(text.utf8)) else { Issue.record("\(text) loaded"); continue }
            #expect(why.reason.contains(reason), "\(why.reason)")
        }
    }

    @Test("a missing file is a fresh start, not a problem")
    func missing() {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let loaded = FileStore(directory: dir, now: { Instant.epoch }).load()
        #expect(loaded.activities.isEmpty && loaded.problem == nil && loaded.savedAt == nil)
    }

    @Test("corrupt, unknown-schema and undecodable files are reported and moved aside", arguments: [
        "{ this is not json",
        #"{"schema":99,"saved_at":"2026-11-29T22:00:00.000Z","activities":[]}"#,
        #"{"schema":1,"saved_at":"yesterday","activities":[]}"#,
        #"{"schema":1,"saved_at":"2026-11-29T22:00:00.000Z","activities":[{"attributes":{}}]}"#,
        "",
    ])
    func corrupt(_ content: String) throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        try content.write(toFile: dir + "/activities.json", atomically: true, encoding: .utf8)
        let loaded = FileStore(directory: dir, now: { Instant.epoch }).load()
        #expect(loaded.activities.isEmpty)
        let problem = try #require(loaded.problem)
        #expect(problem.contains("moved aside"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(!files.contains("activities.json"), "the bad file is out of the way")
        let aside = try #require(files.first { $0.hasPrefix("activities.json.bad-") })
        #expect(try String(contentsOfFile: dir + "/" + aside, encoding: .utf8) == content, "kept for inspection")
    }

    @Test("a save replaces the file whole")
    func replaces() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let store = FileStore(directory: dir, now: { Instant.epoch })
        try store.saveNow(try sample())
        try store.saveNow([])
        #expect(store.load().activities.isEmpty)
    }

    @Test("a save into a missing directory fails with the path and errno text")
    func failure() {
        let store = FileStore(directory: "/nonexistent/islet", now: { Instant.epoch })
        #expect {
            try store.saveNow([])
        } throws: { error in
            "\(error)".contains("/nonexistent/islet/activities.json.tmp") && "\(error)".contains("No such file")
        }
    }
}
