import Foundation
import IsletCore
import IsletProtocol
import IsletStore
import IsletTestSupport
import Testing

/// A backup with the running activities (docs/WEB.md "Backup"): exported in the state file's
/// encoding, restored all or nothing together with the settings, the backup's activities
/// replacing the running ones, each checked as the state file's are at load.
@Suite("a backup with activities", .offPool, .timeLimit(.minutes(2)))
struct BackupRestoreTests {
    func errorCode(_ answer: [String: Any]?) -> String? { (answer?["error"] as? [String: Any])?["code"] as? String }
    func errorMessage(_ answer: [String: Any]?) -> String { ((answer?["error"] as? [String: Any])?["message"] as? String) ?? "" }
    func minutes(_ d: InProcessDaemon) throws -> String? {
        let keys = ((try d.request(#"{"op":"settings"}"#)?["settings"] as? [String: Any])?["keys"] as? [[String: Any]]) ?? []
        return keys.first { $0["key"] as? String == "session.minutes" }?["value"] as? String
    }

    func export(_ d: InProcessDaemon, activities: Bool = true) throws -> String {
        let r = try d.request(#"{"op":"settings_export","activities":\#(activities)}"#)
        return try #require((r?["settings"] as? [String: Any])?["backup"] as? String, "\(String(describing: r))")
    }

    func restore(_ d: InProcessDaemon, _ backup: String) throws -> [String: Any]? {
        try d.request(String(decoding: try JSONSerialization.data(withJSONObject: ["op": "settings_import", "backup": backup]), as: UTF8.self))
    }

    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func text(_ o: [String: Any]) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: o), as: UTF8.self) }

    @Test func exportHoldsTheActivitiesInTheStateFilesEncoding() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        _ = try d.request(#"{"op":"start","timer":"tea","seconds":300}"#)
        _ = try d.request(#"{"op":"start","timer":"run","seconds":900}"#)
        let with = try object(try export(d))
        #expect(with["islet_backup"] as? Int == 2)
        let list = try #require(with["activities"] as? [[String: Any]])
        #expect(list.compactMap { ($0["attributes"] as? [String: Any])?["timer"] as? String }.sorted() == ["run", "tea"])
        // The same form as the state file's own activities.
        let file = try object(try #require(readTextFile(d.stateFile)))
        let saved = try #require(file["activities"] as? [[String: Any]])
        #expect(Set(saved.first.map { Array($0.keys) } ?? []) == Set(list.first.map { Array($0.keys) } ?? []))
        // Without the option: settings alone, version 1 (what an earlier Islet reads).
        let without = try object(try export(d, activities: false))
        #expect(without["islet_backup"] as? Int == 1 && without["activities"] == nil)
    }

    @Test func aRestoreReplacesTheRunningActivitiesAndTheSettingsTogether() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        _ = try d.request(#"{"op":"settings_set","key":"session.minutes","value":"25"}"#)
        _ = try d.request(#"{"op":"start","timer":"tea","seconds":300}"#)
        _ = try d.request(#"{"op":"start","timer":"run","seconds":900}"#)
        let backup = try export(d)
        _ = try d.request(#"{"op":"end","timer":"tea"}"#)
        _ = try d.request(#"{"op":"start","timer":"other","seconds":60}"#)
        _ = try d.request(#"{"op":"settings_reset","key":"session.minutes"}"#)
        let r = try restore(d, backup)
        #expect(r?["ok"] as? Bool == true, "\(String(describing: r))")
        #expect(try minutes(d) == "25")
        let s = try #require(try d.waitForStatus { Set(d.activities($0)) == ["tea", "run"] }, "the backup's activities are the running ones")
        let tea = (s["activities"] as? [[String: Any]])?.first { $0["timer"] as? String == "tea" }
        #expect(tea?["phase"] as? String == "running")
        // Durable: the state file holds them.
        var saved: [String]?
        for _ in 0..<200 where Set(saved ?? []) != ["tea", "run"] { saved = d.fileTimers(); usleep(20_000) }
        #expect(Set(saved ?? []) == ["tea", "run"])
    }

    /// A bad activity among good ones, too many, a newer version: refused, named, and neither
    /// the settings nor the activities changed.
    @Test func aBadBackupChangesNeitherSettingsNorActivities() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        _ = try d.request(#"{"op":"start","timer":"tea","seconds":300}"#)
        _ = try d.request(#"{"op":"start","timer":"run","seconds":900}"#)
        var good = try object(try export(d))
        good["settings"] = ["session.minutes": "40"]
        let list = try #require(good["activities"] as? [[String: Any]])

        var badOne = good
        var broken = list
        var attrs = try #require(broken[1]["attributes"] as? [String: Any])
        attrs["title"] = String(repeating: "x", count: 65)
        broken[1]["attributes"] = attrs
        badOne["activities"] = broken

        var badTime = good
        var late = list
        late[0]["started_at"] = "2300-01-01T00:00:00Z"
        badTime["activities"] = late

        var twice = good
        twice["activities"] = [list[0], list[0]]

        var tooMany = good
        tooMany["activities"] = Array(repeating: list[0], count: 17)

        var newer = good
        newer["islet_backup"] = 3

        let cases: [([String: Any], String)] = [
            (badOne, "activities[1]"), (badTime, "started_at"), (twice, "tea"), (tooMany, "17 activities"), (newer, "version 3"),
        ]
        let before = try d.request(#"{"op":"status"}"#).map { d.activities($0) }
        for (backup, why) in cases {
            let r = try restore(d, try text(backup))
            #expect(errorCode(r) == "invalid_backup", "\(why): \(String(describing: r))")
            #expect(errorMessage(r).contains(why), "\(errorMessage(r))")
            #expect(errorMessage(r).contains("nothing was changed"), "\(errorMessage(r))")
        }
        #expect(try minutes(d) != "40")
        #expect(try d.request(#"{"op":"status"}"#).map { d.activities($0) } == before)
    }

    /// A restored clock is wall time: a countdown whose end passed since the backup is complete,
    /// as after a restart.
    @Test func aCountdownRestoredAfterItsEndIsComplete() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        let started = Instant(milliseconds: Int64(Date().timeIntervalSince1970 * 1000) - 61_000)
        let attrs = ActivityAttributes(timerID: "old", kind: .countdown(cycle: .seconds(60), cycles: 1), title: "Old")
        let a = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: started).activity)
        let backup = SettingsDocument.encodeBackup([:], activities: try BackupActivities.encode([a]))
        let r = try restore(d, String(decoding: backup, as: UTF8.self))
        #expect(r?["ok"] as? Bool == true, "\(String(describing: r))")
        let s = try d.request(#"{"op":"status"}"#)
        let old = (s?["activities"] as? [[String: Any]])?.first { $0["timer"] as? String == "old" }
        // Complete (lingering for its checkmark) or already gone: never running again.
        #expect(old == nil || old?["phase"] as? String == "complete", "\(String(describing: old))")
    }

    @Test func anExportTooLargeToRestoreIsRefused() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        // 16 activities with titles at their bound in their heaviest bytes (a quote and a
        // combining arrow a character): past one request line once escaped twice.
        let title = String(repeating: "\"\u{20D7}", count: ActivityAttributes.maxTitleLength)
        for i in 0..<16 {
            let r = try d.request(try text(["op": "start", "timer": "t\(i)", "seconds": 600, "title": title]))
            #expect(errorCode(r) == nil, "\(String(describing: r))")
        }
        let r = try d.request(#"{"op":"settings_export","activities":true}"#)
        #expect(errorCode(r) == "too_large")
        #expect(errorMessage(r).contains("16 activities"), "\(errorMessage(r))")
        #expect(try d.request(#"{"op":"settings_export"}"#)?["ok"] as? Bool == true, "settings alone still export")
    }
}
