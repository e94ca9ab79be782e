import IsletNetwork
import Foundation
import IsletCore
import IsletProtocol
import IsletStore
import IsletSync
import IsletTestSupport
@testable import IsletWeb
import Testing

/// The largest legal activity, and the largest legal state, in bytes (issue 44; docs/RELIABILITY.md
/// "What is bounded"). Every field is at its bound in the bytes its JSON takes most: a character
/// of a title or text is `"` (escaped to two bytes) and U+20D7 COMBINING RIGHT ARROW ABOVE (three
/// bytes, and part of the same character by UAX #29), so a 64-character title is 256 bytes of
/// UTF-8 and 320 of JSON; a custom icon is 2,816 `/`, which the state file and sync records
/// escape to `\/`.
@Suite struct RecordSizeTests {
    let now = Instant(milliseconds: 1_796_076_000_000)

    static let title = String(repeating: "\"\u{20D7}", count: ActivityAttributes.maxTitleLength)
    static let text = String(repeating: "\"\u{20D7}", count: PushedContent.maximumTextLength)
    /// 16 letters of four bytes (U+20000, a CJK ideograph: Alphabetic).
    static let language = String(repeating: "\u{20000}", count: ActivityAttributes.maxLanguageLength)
    static let icon = ActivityIcon.custom(base64: String(repeating: "/", count: ActivityIcon.maximumCustomBase64Length))
    /// Numbers whose JSON is longest in their ranges.
    static let longFraction = 2.2250738585072014e-308

    func timer(_ i: Int) -> String { String(format: "%02d", i) + String(repeating: "x", count: ActivityAttributes.maxTimerIDLength - 2) }

    /// One activity of each kind, every field at its bound, in its heaviest legal state.
    func heaviest(_ i: Int) throws -> Activity {
        let kinds: [ActivityKind] = [
            .countdown(cycle: .milliseconds(86_399_999), cycles: 999),
            .stopwatch,
            .until(PushedContent(endsAt: now + .milliseconds(86_399_999), progress: Self.longFraction, text: Self.text)),
        ]
        let attrs = ActivityAttributes(timerID: timer(i), kind: kinds[i % 3], title: Self.title, cycleEndInterval: .milliseconds(599_999),
                                       staleAfter: .milliseconds(987_654_321_098_765), language: Self.language, icon: Self.icon,
                                       relevance: Self.longFraction)
        #expect(attrs.violation() == nil, "the heaviest attributes are legal")
        var a = try #require(try TimerMachine.apply(.start(attrs), to: nil, now: now).activity)
        switch attrs.kind {
        case .until:
            let u = ContentUpdate(endsAt: .set(now + .milliseconds(86_400_000)), progress: .set(Self.longFraction), text: .set(Self.text))
            a = try #require(try TimerMachine.apply(.update(u), to: a, now: now + .milliseconds(1)).activity)
        case .countdown, .stopwatch:
            a = try #require(try TimerMachine.apply(.pause, to: a, now: now + .milliseconds(1_234_567)).activity)
        }
        a.content.isStale = true
        #expect(a.violation() == nil, "the heaviest activity is legal")
        return a
    }

    func stateFileRecord(_ a: Activity) throws -> Int {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]  // as FileStore writes it
        return try e.encode(a).count
    }

    @Test func theLargestRecordIsUnderItsNamedBound() throws {
        var largest = 0
        for i in 0..<3 {
            let a = try heaviest(i)
            let saved = try stateFileRecord(a)
            let answered = JSONLines.encode(ActivityReport(activity: a, now: now)).count
            var ledger = SyncLedger(device: "pi")
            let record = ledger.record(a.timerID, activity: a, now: now)
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]  // as a record is published
            let published = try e.encode(record).count
            largest = max(largest, saved, answered, published)
            #expect(published <= SyncWire.maximumRecordBytes, "a record every peer takes")
        }
        #expect(largest <= Activity.maximumRecordBytes)
        // The bound is near the truth: a bound far above it would hide growth.
        #expect(largest > Activity.maximumRecordBytes - 1024, "largest \(largest)")
    }

    /// Item 6 and 8 of issue 44: 16 activities at every bound at once.
    @Test func theLargestStateFitsTheStreamTheFileAndStatus() throws {
        let activities = try (0..<ActivityBook.maximumActivities).map(heaviest)
        // `status` and the page's first `state` event: the same answer, every activity with
        // what it shows, the daemon's own block (a 128×64 panel's image in hex, a sync group's
        // 16 peers) and every timer shown.
        let panel = PanelImage(width: 128, height: 64, on: true, bytes: [UInt8](repeating: 0xFF, count: 128 * 64 / 8))
        var daemon = DaemonStatus(pid: 4_194_304, version: String(repeating: "9", count: 64), uptimeSeconds: 1e9, wakeups: .max, frames: .max,
                                  busBytes: .max, busErrors: .max, panelPresent: true, panelOn: true, bus: String(repeating: "b", count: 64),
                                  size: "128x64", presentation: "expanded", storeError: String(repeating: "e", count: 512), panel: panel)
        daemon.set("clients", 64)
        daemon.set("clock_behind", true)
        daemon.set("chime_pulses", Int.max)
        var answer = ControlResponse(ok: true, event: "state", activities: activities.map { ActivityReport(activity: $0, now: now) },
                                     presentation: "expanded", shownTimers: activities.map(\.timerID), status: daemon, now: now)
        answer.requestID = String(repeating: "\u{1D11E}", count: ControlRequest.maximumRequestIDLength)
        let status = JSONLines.encode(answer)
        let event = WebPage.event("state", status)
        #expect(event.count <= Self.maximumStateEventBytes, "state event \(event.count)")
        #expect(Self.maximumStateEventBytes * 2 <= EventStream.maximumQueued, "room for the frame and changes behind it")

        // The state file: the activities and a sync group's ledger, 16 live records and the
        // rest of its 256 entries tombstones.
        var ledger = SyncLedger(device: String(repeating: "d", count: 64))
        for a in activities { _ = ledger.record(a.timerID, activity: a, now: now) }
        for i in 0..<(SyncLedger.maximumEntries - activities.count) {
            _ = ledger.record(String(format: "t%03d", i) + String(repeating: "y", count: 60), activity: nil, now: now)
        }
        #expect(ledger.entries.count == SyncLedger.maximumEntries)
        let dir = makeTempDir()
        defer { removeTree(dir) }
        try FileStore(directory: dir, now: { self.now }).saveNow(activities, slices: [SavedLedger.key: SavedLedger(ledger: ledger)])
        let file = try #require(FileManager.default.contents(atPath: dir + "/activities.json")).count
        #expect(file <= Self.maximumStateFileBytes, "state file \(file)")
        #expect(Self.maximumStateFileBytes <= 1 << 20, "the loader reads 1 MiB")
        // Without a sync group: the activities alone.
        let plain = makeTempDir()
        defer { removeTree(plain) }
        try FileStore(directory: plain, now: { self.now }).saveNow(activities)
        let alone = try #require(FileManager.default.contents(atPath: plain + "/activities.json")).count
        #expect(alone <= ActivityBook.maximumActivities * Activity.maximumRecordBytes + 512, "activities alone \(alone)")
    }

    /// The documented figures (docs/RELIABILITY.md), what this test measured rounded up to the
    /// next KiB: 67,812 and 274,283 bytes.
    static let maximumStateEventBytes = 68 * 1024
    static let maximumStateFileBytes = 272 * 1024
}
