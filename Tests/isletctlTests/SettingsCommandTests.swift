import Foundation
import IsletTestSupport
import Testing
import IsletProtocol
import IsletSystem
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

    /// A device, a FIFO or a directory is named as not a regular file (not "Invalid argument").
    @Test func onlyARegularFileIsABackup() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        for path in ["/dev/zero", dir + "/fifo", dir] {
            guard case .failure(let e) = SettingsCommand.readBackup(path) else { Issue.record("\(path) read"); continue }
            #expect(e.message == "\(path) is not a regular file", "\(e.message)")
        }
    }

    /// A valid backup goes compacted (its whitespace does not count against the request's
    /// bound); text that is not JSON goes as is; a backup too big even compacted is said in
    /// words about the backup.
    @Test func aBackupIsSentCompacted() throws {
        let body = #"{"islet_backup":1,"settings":{"session.minutes":"25"}}"#
        let padded = "{\n" + String(repeating: "\n", count: 12_000) + #" "islet_backup" : 1, "settings" : { "session.minutes" : "25" } }"#
        #expect(padded.utf8.count > 8 * 1024 && padded.utf8.count <= SettingsDocument.maximumBackupBytes)
        guard case .success(let r) = SettingsCommand.importRequest(padded, source: "b.json") else { Issue.record("refused"); return }
        #expect(r.op == .settingsImport)
        #expect(try SettingsDocument.backup(Array((r.settings.backup ?? "").utf8)) == ["session.minutes": "25"])
        #expect((r.settings.backup ?? "").utf8.count == body.utf8.count, "\(r.settings.backup ?? "")")
        #expect(r.encodedLine().count <= ControlRequest.maximumLineBytes)
        #expect(SettingsCommand.compacted("{\"islet_backup\":1,,}") == "{\"islet_backup\":1,,}")
        // 5,000 escaped quotes (10,000 bytes) are 20,000 once escaped again in the request: too long.
        let heavy = #"{"islet_backup":1,"settings":{"session.language":""# + String(repeating: "\\\"", count: 5_000) + #""}}"#
        guard case .failure(let e) = SettingsCommand.importRequest(heavy, source: "b.json") else { Issue.record("taken"); return }
        #expect(e.message.hasPrefix("b.json: this backup is ") && e.message.contains("a restore takes at most \(ControlRequest.maximumLineBytes)"), "\(e.message)")
    }

    /// The export is written atomically, 0600: a symlink at FILE is replaced (its target kept),
    /// an old file's looser mode not kept.
    @Test func anExportReplacesALinkAndIs0600() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let target = dir + "/target", link = dir + "/link.json", old = dir + "/old.json"
        try "precious".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(symlink(target, link) == 0)
        try FileSystem.replaceFile(link, Array("backup".utf8), permissions: 0o600)
        #expect(readTextFile(target) == "precious")
        #expect(readTextFile(link) == "backup")
        #expect(try FileSystem.status(link, followLinks: false).kind == .regular)
        try "old".write(toFile: old, atomically: false, encoding: .utf8)
        #expect(chmod(old, 0o644) == 0)
        try FileSystem.replaceFile(old, Array("new".utf8), permissions: 0o600)
        #expect(try FileSystem.status(old).permissions == 0o600)
        #expect(readTextFile(old) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["link.json", "old.json", "target"])
    }
}

/// Every exit status isletctl returns is listed in its --help (and README.md's "isletctl").
struct ExitStatusHelpTests {
    @Test func theHelpListsEveryExitStatus() throws {
        for status in ["0 done", "1 refused", "64 bad usage", "65 settings import", "66 settings import", "69 no daemon",
                       "73 settings export", "75 the daemon"] {
            #expect(CtlMain.usage.contains(status), "\(status)")
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let readme = try #require(readTextFile(root + "/README.md"))
        for status in ["65 `settings import`", "66 `settings import`", "73 `settings export`"] { #expect(readme.contains(status), "\(status)") }
    }
}
