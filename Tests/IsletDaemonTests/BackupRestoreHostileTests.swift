import Foundation
import IsletCore
import IsletProtocol
import IsletStore
import IsletTestSupport
import Testing

/// A restore of hostile activities (docs/WEB.md "Backup"): refused whole at import when no
/// Islet could have written them, and never a journal line per import.
@Suite("a hostile backup's activities", .offPool, .timeLimit(.minutes(2)))
struct BackupRestoreHostileTests {
    func importRequest(_ backup: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["op": "settings_import", "backup": backup]), as: UTF8.self)
    }

    /// A backup holding one running stopwatch whose start (its reference) is `reference`.
    func stopwatchBackup(reference: String) throws -> String {
        let now = Instant(milliseconds: Int64(Date().timeIntervalSince1970 * 1000) - 60_000)
        let a = try #require(try TimerMachine.apply(.start(ActivityAttributes(timerID: "sw", kind: .stopwatch)), to: nil, now: now).activity)
        var o = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(a)) as? [String: Any])
        var c = try #require(o["content"] as? [String: Any])
        if !reference.isEmpty { c["reference"] = reference }
        o["content"] = c
        return String(decoding: try JSONSerialization.data(withJSONObject: ["islet_backup": 2, "settings": [:], "activities": [o]]), as: UTF8.self)
    }

    @Test("D1: a stopwatch started in 2199 is refused, nothing changes, and the state file stays loadable")
    func aStopwatchFromTheFutureIsRefused() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        _ = try d.request(#"{"op":"start","timer":"tea","seconds":300}"#)
        let r = try d.request(try importRequest(try stopwatchBackup(reference: "2199-01-01T00:00:00.000Z")))
        let error = r?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "invalid_backup", "\(String(describing: r))")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("activities[0].content.reference") && message.contains("nothing was changed"), "\(message)")
        let s = try d.request(#"{"op":"status"}"#)
        let timers = ((s?["activities"] as? [[String: Any]]) ?? []).compactMap { $0["timer"] as? String }
        #expect(timers == ["tea"])
    }

    @Test("D4: 16 imports in a row write one line of the restore, not 16")
    func importsAreNotAJournalLineEach() throws {
        let d = try DaemonUnderTest()
        let client = try RawClient(path: d.socket)
        let line = try importRequest(try stopwatchBackup(reference: "")) + "\n"
        var ok = 0
        for _ in 0..<16 {
            client.send(line)
            if client.readJSON()?["ok"] as? Bool == true { ok += 1 }
        }
        #expect(ok == 16)
        _ = d.ctl("status")
        let lines = d.log_().split(separator: "\n").filter { $0.contains("activities from a backup") }
        print("figure: 16 imports wrote \(lines.count) 'restored … from a backup' lines")
        #expect(lines.count <= 2, "\(lines.count) lines")
        _ = d.stop()
    }
}
