import Foundation
import IsletClock
import IsletProtocol
import IsletDaemon
import IsletTestSupport
import Testing

/// The page's settings in a running daemon (docs/WEB.md "Settings", "Backup"): the ops on the
/// socket, settings.json on disk, the panel's contrast on the bus, a bad overlay moved aside.
@Suite("the page's settings overlay", .offPool, .timeLimit(.minutes(2)))
struct SettingsDeskTests {
    func settings(_ answer: [String: Any]?) -> [String: [String: Any]] {
        let keys = ((answer?["settings"] as? [String: Any])?["keys"] as? [[String: Any]]) ?? []
        return Dictionary(uniqueKeysWithValues: keys.compactMap { k in (k["key"] as? String).map { ($0, k) } })
    }

    func errorCode(_ answer: [String: Any]?) -> String? { (answer?["error"] as? [String: Any])?["code"] as? String }
    func errorMessage(_ answer: [String: Any]?) -> String { ((answer?["error"] as? [String: Any])?["message"] as? String) ?? "" }

    /// settings.json once the writer has written it (it is off the loop, up to half a second later).
    func overlayOnDisk(_ d: InProcessDaemon, until done: ([String: String]) -> Bool) -> [String: String]? {
        for _ in 0..<200 {
            if let text = readTextFile(d.dir + "/state/settings.json"), let v = try? SettingsDocument.overlay(Array(text.utf8)), done(v) { return v }
            usleep(20_000)
        }
        return nil
    }

    @Test func aPageValueIsInForceOnDiskAndResetToTheFiles() throws {
        let d = try InProcessDaemon(config: "[session]\nminutes = 20\n[display]\ncontrast = 40\n")
        defer { d.stop() }
        let set = try d.request(#"{"op":"settings_set","key":"display.contrast","value":"150"}"#)
        #expect(set?["ok"] as? Bool == true)
        #expect(settings(set)["display.contrast"]?["source"] as? String == "page")
        #expect(settings(set)["display.contrast"]?["file_value"] as? String == "40")
        // Night mode's status (what Home Assistant's contrast entity shows) follows.
        let night = try d.waitForStatus { (($0["status"] as? [String: Any])?["night"] as? [String: Any])?["contrast"] as? Int == 150 }
        #expect(night != nil, "status did not show the page's contrast")
        #expect(overlayOnDisk(d) { $0["display.contrast"] == "150" } != nil)
        // A toggle starts the page's default session.
        _ = try d.request(#"{"op":"settings_set","key":"session.minutes","value":"7"}"#)
        let toggled = try d.request(#"{"op":"toggle"}"#)
        let a = (toggled?["activities"] as? [[String: Any]])?.first
        #expect((a?["remaining_seconds"] as? Double).map { $0 > 400 && $0 <= 420 } == true, "\(String(describing: a))")
        let reset = try d.request(#"{"op":"settings_reset","key":"display.contrast"}"#)
        #expect(settings(reset)["display.contrast"]?["value"] as? String == "40")
        #expect(settings(reset)["display.contrast"]?["source"] as? String == "file")
        #expect(overlayOnDisk(d) { $0["display.contrast"] == nil && $0["session.minutes"] == "7" } != nil)
    }

    @Test func aRefusedValueCarriesTheParsersMessageAndChangesNothing() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        let r = try d.request(#"{"op":"settings_set","key":"session.minutes","value":"2000"}"#)
        #expect(errorCode(r) == "invalid_value")
        #expect(errorMessage(r) == #"session.minutes = "2000" is not valid; accepted: a number from 0.05 to 1440"#)
        #expect(settings(try d.request(#"{"op":"settings"}"#))["session.minutes"]?["source"] as? String == "default")
        #expect(!FileManager.default.fileExists(atPath: d.dir + "/state/settings.json"))
    }

    @Test func aBadOverlayIsMovedAsideAndTheFilesValuesUsed() throws {
        let d = try InProcessDaemon(config: "[session]\nminutes = 12\n",
                                    settings: #"{"islet_settings":1,"values":{"session.minutes":"30","session.minutes":"40"}}"#)
        defer { d.stop() }
        let s = settings(try d.request(#"{"op":"settings"}"#))
        #expect(s["session.minutes"]?["value"] as? String == "12" && s["session.minutes"]?["source"] as? String == "file")
        #expect(FileManager.default.fileExists(atPath: d.dir + "/state/settings.json.bad"))
        #expect(!FileManager.default.fileExists(atPath: d.dir + "/state/settings.json"))
    }

    @Test func aGoodOverlayIsInForceFromTheStart() throws {
        let d = try InProcessDaemon(settings: #"{"islet_settings":1,"values":{"session.kind":"stopwatch"}}"#)
        defer { d.stop() }
        let toggled = try d.request(#"{"op":"toggle"}"#)
        #expect((toggled?["activities"] as? [[String: Any]])?.first?["elapsed_seconds"] != nil, "toggle did not start a stopwatch")
    }

    @Test func exportResetImportGivesTheSameSettings() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        _ = try d.request(#"{"op":"settings_set","key":"session.minutes","value":"25"}"#)
        _ = try d.request(#"{"op":"settings_set","key":"display.night","value":"22:30-07:00"}"#)
        let before = settings(try d.request(#"{"op":"settings"}"#)).mapValues { $0["value"] as? String }
        let backup = try #require((try d.request(#"{"op":"settings_export"}"#)?["settings"] as? [String: Any])?["backup"] as? String)
        for k in ["session.minutes", "display.night"] { _ = try d.request(#"{"op":"settings_reset","key":"\#(k)"}"#) }
        #expect(settings(try d.request(#"{"op":"settings"}"#))["session.minutes"]?["source"] as? String == "default")
        let line = String(decoding: try JSONSerialization.data(withJSONObject: ["op": "settings_import", "backup": backup]), as: UTF8.self)
        let restored = try d.request(line)
        #expect(restored?["ok"] as? Bool == true)
        #expect(settings(restored).mapValues { $0["value"] as? String } == before)
    }

    /// A bad, oversized or newer backup, or one with a value the file would refuse: refused,
    /// named, and nothing changed (all or nothing).
    @Test func aBadBackupChangesNothing() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        _ = try d.request(#"{"op":"settings_set","key":"session.minutes","value":"25"}"#)
        let before = settings(try d.request(#"{"op":"settings"}"#)).mapValues { $0["value"] as? String }
        let bad: [(String, String, String)] = [
            (#"{"islet_backup":3,"settings":{"session.minutes":"5"}}"#, "invalid_backup", "version 3, made by a newer Islet"),
            (#"{"islet_backup":1,"settings":{"session.minutes":"5","display.contrast":"300"}}"#, "invalid_backup", "display.contrast"),
            (#"{"islet_backup":1,"settings":{"display.bus":"mock"}}"#, "invalid_backup", "not a setting"),
            ("not json", "invalid_backup", "not valid JSON"),
            (#"{"islet_backup":1,"settings":{}}"# + String(repeating: " ", count: 17_000), "line_too_long", "limited to 16384 bytes"),
        ]
        for (backup, code, why) in bad {
            let line = String(decoding: try JSONSerialization.data(withJSONObject: ["op": "settings_import", "backup": backup]), as: UTF8.self)
            let r = try d.request(line)
            #expect(errorCode(r) == code, "\(backup.prefix(60))")
            #expect(errorMessage(r).contains(why), "\(errorMessage(r))")
        }
        #expect(settings(try d.request(#"{"op":"settings"}"#)).mapValues { $0["value"] as? String } == before)
    }

    /// A disk that fails: the answer says the write failed, `settings` says so too, and the
    /// change is undone (the file's value, here the default, is in force again).
    @Test func aFailedWriteIsSaidAndUndone() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        d.disk.failing.withLock { $0 = true }
        let set = try d.request(#"{"op":"settings_set","key":"session.minutes","value":"9"}"#)
        #expect(errorCode(set) == "store_failed")
        var said: String?
        for _ in 0..<100 where said == nil {
            said = (try d.request(#"{"op":"settings"}"#)?["settings"] as? [String: Any])?["write_error"] as? String
            if said == nil { usleep(20_000) }
        }
        #expect(said?.contains("fsync") == true, "\(String(describing: said))")
        let minutes = settings(try d.request(#"{"op":"settings"}"#))["session.minutes"]
        #expect(minutes?["value"] as? String != "9" && minutes?["source"] as? String == "default", "\(String(describing: minutes))")
        d.disk.failing.withLock { $0 = false }
    }

    /// A flood of edits rewrites the SD card a few times, not once an edit: writes are at least
    /// half a second apart and only the latest is written.
    @Test func aFloodOfEditsIsCoalesced() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        let c = try d.client()
        for i in 0..<200 { c.send(#"{"op":"settings_set","key":"display.night_contrast","value":"\#(i % 256)"}"# + "\n") }
        for _ in 0..<200 { _ = c.readJSON() }
        #expect(overlayOnDisk(d) { $0["display.night_contrast"] == "199" } != nil)
        let writes = d.disk.renamed.withLock { $0["settings.json"] ?? 0 }
        #expect(writes >= 1 && writes <= 6, "\(writes) writes for 200 edits")
        print("figure: 200 settings_set in a row: \(writes) writes of settings.json")
    }
}
