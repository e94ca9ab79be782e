import Foundation
import IsletCore
import IsletProtocol
import IsletStore
import IsletWeb
import Testing

/// How large a backup with activities gets (docs/WEB.md "Backup"): the largest legal one, 16
/// activities at every bound (RecordSizeTests' heaviest) and ten settings of 256 bytes, is far
/// larger than one request line and the page's POST body (16 KiB each), so such an export is
/// refused rather than written as a file no restore could carry; 16 plain countdowns fit.
@Suite struct BackupSizeTests {
    let now = Instant(milliseconds: 1_796_076_000_000)

    func backup(_ activities: [Activity], heavySettings: Bool) throws -> [UInt8] {
        let value = String(repeating: "\"", count: SettingsDocument.maximumValueBytes)
        let settings = heavySettings ? Dictionary(uniqueKeysWithValues: SettingsDocument.editableKeys.map { ($0, value) }) : [:]
        return SettingsDocument.encodeBackup(settings, activities: try BackupActivities.encode(activities))
    }

    @Test func theLargestLegalBackupIsMeasuredAndRefusedAtExport() throws {
        let sizes = RecordSizeTests()
        let heaviest = try (0..<ActivityBook.maximumActivities).map { try sizes.heaviest($0) }
        try ActivityBook.check(heaviest)
        let largest = try backup(heaviest, heavySettings: true)
        let restore = SettingsDocument.restoreRequestBytes(largest)
        print("figure: the largest legal backup: \(largest.count) bytes; its restore request: \(restore) bytes")
        // Larger than any request carries: the export of it is refused (too_large).
        #expect(largest.count > SettingsDocument.maximumBackupBytes)
        #expect(restore > ControlRequest.maximumLineBytes)
        // The page's POST body carries what a request line does: the bound is one for both doors.
        #expect(HTTPRequest.maximumBody == SettingsDocument.maximumBackupBytes)
        #expect(ControlRequest.maximumLineBytes == SettingsDocument.maximumBackupBytes)
        // How many of the heaviest activities a restorable backup holds (the rest of the 16 must end first).
        let fitting = try (0...heaviest.count).last { n in
            SettingsDocument.restoreRequestBytes(try backup(Array(heaviest.prefix(n)), heavySettings: false)) <= ControlRequest.maximumLineBytes
        } ?? 0
        print("figure: a restorable backup holds \(fitting) of the heaviest legal activities")
        #expect(fitting >= 1)
        // It reads back whole when the bound is not in the way (the codec loses nothing).
        let back = try SettingsDocument.readBackup(largest, limit: largest.count)
        // Restored by a clock at their last change (RecordSizeTests' own), not before it: a
        // restore refuses instants after its now.
        let restoredAt = heaviest.map(\.updatedAt).max() ?? now
        #expect(try BackupActivities.decode(#require(back.activities), now: restoredAt) == heaviest)
    }

    @Test func sixteenPlainCountdownsFitARestore() throws {
        var list: [Activity] = []
        for i in 0..<ActivityBook.maximumActivities {
            let attrs = ActivityAttributes(timerID: "timer-\(i)", kind: .countdown(cycle: .seconds(25 * 60), cycles: 1), title: "Focus")
            list.append(try #require(try TimerMachine.apply(.start(attrs), to: nil, now: now).activity))
        }
        let b = try backup(list, heavySettings: false)
        let restore = SettingsDocument.restoreRequestBytes(b)
        print("figure: a backup of 16 plain countdowns: \(b.count) bytes; its restore request: \(restore) bytes")
        #expect(restore <= ControlRequest.maximumLineBytes)
        #expect(try BackupActivities.decode(#require(SettingsDocument.readBackup(b).activities), now: now) == list)
    }
}
