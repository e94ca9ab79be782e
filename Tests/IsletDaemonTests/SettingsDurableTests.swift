import Foundation
import IsletProtocol
import IsletDaemon
import IsletTestSupport
import Testing

/// "Nothing is lost" (docs/WEB.md "Settings"): a settings change is answered only once
/// settings.json holds it (temp file, fsync, rename), as an activity's change is answered after
/// the state file's write; the writes stay coalesced, the socket served meanwhile, and a failed
/// write is the answer.
@Suite("settings changes answered once on disk", .offPool, .timeLimit(.minutes(2)))
struct SettingsDurableTests {
    func overlay(_ d: InProcessDaemon) -> [String: String]? {
        readTextFile(d.dir + "/state/settings.json").flatMap { try? SettingsDocument.overlay(Array($0.utf8)) }
    }

    /// Whether a line arrives within `ms`.
    func answers(_ c: RawClient, within ms: Int32) -> Bool {
        var p = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, ms) > 0
    }

    @Test func aChangeIsAnsweredOnlyOnceOnDisk() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        d.disk.holding.withLock { $0 = true }
        let c = try d.client()
        c.send(#"{"op":"settings_set","key":"display.contrast","value":"51"}"# + "\n")
        // While the fsync is held, no answer: a kill now would lose the value, so it is not acknowledged.
        #expect(!answers(c, within: 300), "answered before settings.json was written")
        // The loop still serves the socket meanwhile.
        let other = try d.client()
        other.send(#"{"op":"status"}"# + "\n")
        #expect(other.readJSON()?["ok"] as? Bool == true)
        d.disk.holding.withLock { $0 = false }
        let answer = c.readJSON()
        #expect(answer?["ok"] as? Bool == true, "\(String(describing: answer))")
        // At the answer, not later: the file already holds the value.
        #expect(overlay(d)?["display.contrast"] == "51")
    }

    /// A reset and a restore wait for their write too.
    @Test func aResetAndARestoreWaitForTheirWrite() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        #expect(try d.request(#"{"op":"settings_set","key":"session.minutes","value":"7"}"#)?["ok"] as? Bool == true)
        #expect(overlay(d)?["session.minutes"] == "7")
        #expect(try d.request(#"{"op":"settings_reset","key":"session.minutes"}"#)?["ok"] as? Bool == true)
        #expect(overlay(d) == [:])
        let backup = #"{\"islet_backup\":1,\"settings\":{\"session.cycles\":\"3\"}}"#
        #expect(try d.request(#"{"op":"settings_import","backup":"\#(backup)"}"#)?["ok"] as? Bool == true)
        #expect(overlay(d) == ["session.cycles": "3"])
    }

    /// A write that fails answers every request it held with its error (the path and the call),
    /// and is undone: the settings in force are the last saved, as a store_failed of the book's.
    @Test func aFailedWriteIsTheAnswerAndIsUndone() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        func minutes() throws -> (String?, String?) {
            let keys = ((try d.request(#"{"op":"settings"}"#)?["settings"] as? [String: Any])?["keys"] as? [[String: Any]]) ?? []
            let e = keys.first { $0["key"] as? String == "session.minutes" }
            return (e?["value"] as? String, e?["source"] as? String)
        }
        #expect(try d.request(#"{"op":"settings_set","key":"session.minutes","value":"7"}"#)?["ok"] as? Bool == true)
        d.disk.failing.withLock { $0 = true }
        let r = try d.request(#"{"op":"settings_set","key":"session.minutes","value":"9"}"#)
        #expect(errorCode(r) == "store_failed", "\(String(describing: r))")
        let message = ((r?["error"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message.contains(d.dir + "/state/settings.json") && message.contains("fsync") && message.hasSuffix("the settings in force are the last saved"),
                "\(message)")
        let back = try minutes()
        #expect(back.0 == "7" && back.1 == "page", "the last saved value is in force again: \(back)")
        d.disk.failing.withLock { $0 = false }
        // A toggle starts the session in force: 7 minutes, not the 9 that was never saved.
        let toggled = try d.request(#"{"op":"toggle"}"#)
        #expect(toggled?["ok"] as? Bool == true, "\(String(describing: toggled))")
        let remaining = ((try d.request(#"{"op":"status"}"#)?["activities"] as? [[String: Any]])?.first?["remaining_seconds"] as? Double) ?? 0
        #expect(remaining > 7 * 60 - 5 && remaining <= 7 * 60, "\(remaining)")
        #expect(try d.request(#"{"op":"settings_set","key":"session.minutes","value":"10"}"#)?["ok"] as? Bool == true)
        #expect(overlay(d)?["session.minutes"] == "10")
    }

    /// A restore whose settings.json write fails changes nothing: not the settings, and not the
    /// activities (the backup's had replaced the running ones; those come back).
    @Test func aRestoreWhoseWriteFailsPutsTheActivitiesBack() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        func timers() throws -> [String] {
            let list = (try d.request(#"{"op":"status"}"#)?["activities"] as? [[String: Any]]) ?? []
            return list.compactMap { $0["timer"] as? String }.sorted()
        }
        #expect(try d.request(#"{"op":"start","timer":"tea","seconds":300}"#)?["ok"] as? Bool == true)
        let exported = try d.request(#"{"op":"settings_export","activities":true}"#)
        let backup = try #require((exported?["settings"] as? [String: Any])?["backup"] as? String)
        #expect(backup.contains("\"tea\""), "\(backup)")
        // Now two other timers run, and the backup (tea alone, contrast 42) is restored on a failing disk.
        #expect(try d.request(#"{"op":"reset","timer":"tea"}"#)?["ok"] as? Bool == true)
        #expect(try d.request(#"{"op":"start","timer":"rice","seconds":600}"#)?["ok"] as? Bool == true)
        #expect(try d.request(#"{"op":"start","timer":"bread","seconds":900}"#)?["ok"] as? Bool == true)
        #expect(try timers() == ["bread", "rice"])
        var edited = backup.replacingOccurrences(of: #""settings":{}"#, with: #""settings":{"display.contrast":"42"}"#)
        if edited == backup { edited = backup }   // a backup that already held settings: restored as it is
        let line = String(decoding: try JSONSerialization.data(withJSONObject: ["op": "settings_import", "backup": edited]), as: UTF8.self)
        d.disk.failing.withLock { $0 = true }
        let r = try d.request(line)
        #expect(errorCode(r) == "store_failed", "\(String(describing: r))")
        let message = ((r?["error"] as? [String: Any])?["message"] as? String) ?? ""
        #expect(message.contains("nothing was changed"), "\(message)")
        #expect(try timers() == ["bread", "rice"], "the running timers are back")
        let keys = ((try d.request(#"{"op":"settings"}"#)?["settings"] as? [String: Any])?["keys"] as? [[String: Any]]) ?? []
        #expect(keys.first { $0["key"] as? String == "display.contrast" }?["source"] as? String != "page")
        d.disk.failing.withLock { $0 = false }
    }

    /// 5,000 sets in a row: every one answered ok, by the write that holds it; writes at least
    /// 500 ms apart (about one per 500 ms of the flood); the last value on disk.
    @Test func aFloodOfFiveThousandIsCoalescedAndEveryAnswerReleased() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        let c = try d.client()
        let n = 5_000
        var flood: [UInt8] = []
        for i in 0..<n { flood += Array(#"{"op":"settings_set","key":"display.night_contrast","value":"\#(i % 256)"}"#.utf8) + [10] }
        let start = ContinuousClock.now
        c.sendInBackground(flood)
        // Another client is served during the flood, its answer not held behind the writes.
        let watcher = try d.client()
        usleep(100_000)
        let asked = ContinuousClock.now
        watcher.send(#"{"op":"status"}"# + "\n")
        #expect(watcher.readJSON()?["ok"] as? Bool == true)
        let statusMs = Double((ContinuousClock.now - asked).components.attoseconds) / 1e15 + Double((ContinuousClock.now - asked).components.seconds) * 1000
        var ok = 0
        var other: [String: Any]?
        for _ in 0..<n {
            let r = c.readJSON()
            if r?["ok"] as? Bool == true { ok += 1 } else if other == nil { other = r ?? [:] }
            if r == nil { break }
        }
        #expect(other == nil, "\(String(describing: other))")
        let took = ContinuousClock.now - start
        #expect(ok == n)
        #expect(overlay(d)?["display.night_contrast"] == "\((n - 1) % 256)")
        let writes = d.disk.renamed.withLock { $0["settings.json"] ?? 0 }
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        #expect(writes >= 1 && Double(writes) <= seconds / 0.5 + 2, "\(writes) writes in \(seconds) s")
        #expect(statusMs < 400, "status took \(statusMs) ms during the flood")
        print("figure: \(n) settings_set in a row: \(writes) writes of settings.json in \(seconds) s; a status meanwhile: \(statusMs) ms")
    }

    /// Figures: a lone set (after a quiet half second) and sets back to back.
    @Test func theAnswersLatency() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        let c = try d.client()
        func once(_ i: Int) -> Double {
            let t = ContinuousClock.now
            c.send(#"{"op":"settings_set","key":"display.night_contrast","value":"\#(i)"}"# + "\n")
            _ = c.readJSON()
            let e = ContinuousClock.now - t
            return Double(e.components.seconds) * 1000 + Double(e.components.attoseconds) / 1e15
        }
        var lone: [Double] = []
        for i in 0..<5 { usleep(550_000); lone.append(once(i)) }
        var back: [Double] = []
        for i in 0..<5 { back.append(once(100 + i)) }
        lone.sort(); back.sort()
        #expect(lone[2] < 250, "\(lone)")
        print("figure: settings_set answer, lone: p50 \(lone[2]) ms, max \(lone[4]) ms; back to back: p50 \(back[2]) ms, max \(back[4]) ms")
    }
}
