import Foundation
import IsletTestSupport
import Testing
import IsletProtocol
@testable import isletctl

/// `isletctl settings [get|set KEY VALUE|reset KEY|export FILE|import FILE]`: the request it
/// sends, what it refuses before asking (exit 64), and a backup file's bound.
struct SettingsCommandTests {
    @Test func theForms() throws {
        #expect(try SettingsCommand.parse([]).request.op == .settings)
        #expect(try SettingsCommand.parse(["get", "--json"]).json)
        let set = try SettingsCommand.parse(["set", "session.minutes", "25"]).request
        #expect(set.op == .settingsSet && set.settings == SettingsRequest(key: "session.minutes", value: "25"))
        #expect(try SettingsCommand.parse(["reset", "display.night"]).request.settings.key == "display.night")
        let export = try SettingsCommand.parse(["export", "b.json"])
        #expect(export.request.op == .settingsExport && export.file == "b.json")
        #expect(!export.request.settings.activities)
        let withActivities = try SettingsCommand.parse(["export", "--activities", "b.json"])
        #expect(withActivities.request.settings.activities && withActivities.file == "b.json")
        #expect(try SettingsCommand.parse(["export", "b.json", "--activities", "--json"]).request.settings.activities)
        #expect(try SettingsCommand.parse(["import", "-"]).file == "-")
        for bad in [["set", "display.bus", "mock"], ["set", "session.minutes"], ["reset"], ["export"], ["wipe"], ["get", "--timer", "a"],
                    ["set", "session.minutes", "1", "2"],
                    ["import", "b.json", "--activities"], ["get", "--activities"]] {
            #expect(throws: CtlMain.Usage.self, "\(bad)") { try SettingsCommand.parse(bad) }
        }
        // The ops are reached through `settings` only, never as commands of their own.
        #expect(throws: CtlMain.Usage.self) { try CtlMain.parse("settings-set", []) }
    }

    @Test func aBackupFileIsBoundedBeforeItIsSent() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let path = dir + "/backup.json"
        try String(repeating: " ", count: SettingsDocument.maximumBackupBytes + 1).write(toFile: path, atomically: false, encoding: .utf8)
        guard case .failure(let e) = SettingsCommand.readBackup(path) else { Issue.record("read"); return }
        #expect(e.message.contains("larger than \(SettingsDocument.maximumBackupBytes) bytes"))
        try #"{"islet_backup":1}"#.write(toFile: path, atomically: false, encoding: .utf8)
        guard case .success(let t) = SettingsCommand.readBackup(path) else { Issue.record("not read"); return }
        #expect(t == #"{"islet_backup":1}"#)
        guard case .failure = SettingsCommand.readBackup(path + ".missing") else { Issue.record("a missing file read"); return }
    }
}
