import Foundation
import IsletCore
import Testing
import IsletStore
import IsletTestSupport

/// The state file across versions (README.md, "The content state"): every schema-1 file an
/// earlier version wrote still loads, a file is written in the lowest schema that holds it, and
/// a file of a newer schema is moved aside with a message naming the schemas, never guessed at.
@Suite("state file schemas")
struct SchemaTests {
    /// Written by isletd 0.1.0 (commit a1eaa14) itself, on the mock bus, through isletctl.
    func golden(_ name: String) throws -> [UInt8] {
        let dir = String(#filePath.dropLast("SchemaTests.swift".count)) + "Fixtures/schema1/"
        return Array(try Data(contentsOf: URL(fileURLWithPath: dir + name + ".json")))
    }

    func loaded(_ name: String) throws -> LoadedState {
        switch FileStore.decode(try golden(name)) {
        case .success(let s): return s
        case .failure(let why): throw Failure(why.reason)
        }
    }
    struct Failure: Error { let reason: String; init(_ r: String) { reason = r } }

    /// The envelope's own `schema`, read as JSON.
    func envelopeSchema(_ text: String) throws -> Int? {
        (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["schema"] as? Int
    }

    @Test("a running countdown (German, titled, 3 × 20 min) and a paused stopwatch")
    func twoRunning() throws {
        let s = try loaded("two-running")
        let m = try #require(s.activities.first)
        // isletctl start --minutes 20 --cycles 3 --language de --title Abendruhe
        #expect(m.timerID == "meditation" && m.attributes.kind == .countdown(cycle: .seconds(1200), cycles: 3))
        #expect(m.attributes.language == "de" && m.attributes.title == "Abendruhe" && m.attributes.relevance == 100)
        #expect(m.content.display == .running(reference: m.startedAt + .seconds(1200)))
        // isletctl start --stopwatch --timer run; pause 1.2 s later
        let run = try #require(s.activities.last)
        #expect(run.timerID == "run" && run.attributes.kind == .stopwatch)
        guard case .paused(let frozen) = run.content.display else { Issue.record("not paused"); return }
        #expect(frozen > .seconds(1) && frozen < .seconds(2))
        #expect(s.activities.count == 2 && s.savedAt != nil && s.timeline != nil)
    }

    @Test("a paused open-ended countdown with a stale-after, a cycle end, an end with a dismissal, a stale countdown")
    func theOtherStates() throws {
        let paused = try #require(try loaded("paused-countdown").activities.first)
        #expect(paused.attributes.kind == .countdown(cycle: .seconds(754), cycles: nil) && paused.attributes.staleAfter == .seconds(3600))
        #expect(paused.phase == .paused)
        let cycleEnd = try #require(try loaded("cycle-end").activities.first)
        #expect(cycleEnd.phase == .cycleEnd && cycleEnd.attributes.language == "ar" && cycleEnd.attributes.cycleEndInterval == .seconds(120))
        let ended = try #require(try loaded("ended-after").activities.first)
        #expect(ended.phase == .complete && ended.attributes.title == "Tea ☕")
        #expect(ended.ending.map { $0.dismissAt - $0.endedAt } == .seconds(600))
        let stale = try #require(try loaded("stale").activities.first)
        #expect(stale.content.isStale && stale.attributes.language == "zh-Hans")
    }

    @Test("what a schema-1 file held is saved as schema 1 again, byte for byte in its activities", arguments: ["two-running", "paused-countdown", "cycle-end", "ended-after", "stale"])
    func resavedAsSchemaOne(_ name: String) throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let s = try loaded(name)
        try FileStore(directory: dir, now: { s.savedAt ?? .epoch }).saveNow(s.activities)
        let text = try String(contentsOfFile: dir + "/activities.json", encoding: .utf8)
        #expect(try envelopeSchema(text) == 1)
        // The activities' JSON is the one version 0.1.0 wrote: an earlier version reads it after a downgrade.
        let old = String(decoding: try golden(name), as: UTF8.self)
        let activities = { (t: String) in t.components(separatedBy: #""activities":"#).last?.components(separatedBy: #","boot_id""#).first }
        #expect(activities(text) == activities(old))
    }

    @Test("an until activity makes the file schema 2, which loads back equal")
    func untilIsSchemaTwo() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let now = Instant(milliseconds: 1_796_000_000_000)
        let laundry = ActivityAttributes(timerID: "laundry", kind: .until(PushedContent(endsAt: now + .seconds(1800), progress: 0.25, text: "Washing")),
                                         title: "Laundry", icon: .named("laundry"))
        let a = try #require(try TimerMachine.apply(.start(laundry), to: nil, now: now).activity)
        let store = FileStore(directory: dir, now: { now })
        try store.saveNow([a])
        let text = try String(contentsOfFile: dir + "/activities.json", encoding: .utf8)
        #expect(try envelopeSchema(text) == 2)
        let back = store.load()
        #expect(back.problem == nil && back.activities == [a])
    }

    @Test("a newer schema is moved aside with a message naming it and the ones this build reads", arguments: [3, 17])
    func newerIsMovedAside(_ schema: Int) throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let content = #"{"schema":\#(schema),"saved_at":"2026-12-06T10:00:00.000Z","activities":[{"attributes":{"kind":"teleport"}}]}"#
        try content.write(toFile: dir + "/activities.json", atomically: true, encoding: .utf8)
        let loaded = FileStore(directory: dir, now: { Instant.epoch }).load()
        #expect(loaded.activities.isEmpty)
        let problem = try #require(loaded.problem)
        #expect(problem.contains("schema \(schema) was written by a newer Islet") && problem.contains("reads schemas 1 to 2"), "\(problem)")
        #expect(problem.contains("moved aside"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir)
        let aside = try #require(files.first { $0.hasPrefix("activities.json.bad-") })
        #expect(try String(contentsOfFile: dir + "/" + aside, encoding: .utf8) == content, "kept whole for the newer version")
    }
}
