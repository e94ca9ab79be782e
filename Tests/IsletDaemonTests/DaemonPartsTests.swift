import IsletTestSupport
import IsletSync
import IsletCore
import IsletStore
import IsletNetwork
import IsletProtocol
import Foundation
import Testing
import IsletSystem

/// The daemon holds parts that own their state, not their fields (docs/ARCHITECTURE.md): a
/// new capability is one more part, so the daemon and every part stay small. Walked with
/// `[mqtt]` and `[sync]` on, recursively, so a part hidden inside another is counted too.
@Suite("the daemon is a few parts")
struct DaemonPartsTests {
    /// A broker nobody answers (the kernel refuses loopback port 1): the bridge, its link and
    /// the sync group are all built.
    /// The page listens on a loopback port of its own (the process id keeps parallel runs apart),
    /// below the ephemeral range and apart from WebPageTests' (20000-25999).
    static let network = "[display]\nbus = mock\n[mqtt]\nurl = mqtt://127.0.0.1:1\nclient_id = desk\n[sync]\ngroup = desks\n"
        + "[web]\nlisten = 127.0.0.1:\(26_000 + Int(Identity.processID) % 6_000)\n"

    @Test("every object of the daemon, its parts and theirs, holds at most 15 fields")
    func partsOwnTheirState() throws {
        let d = try InProcessDaemon(config: Self.network)
        defer { d.stop() }
        let objects = d.objects()
        for o in objects {
            #expect(o.fields <= 15, "\(o.type) holds \(o.fields) fields")
        }
        // The parts the architecture names are there (a rename must update the doc too).
        for name in ["Daemon", "DurableBook", "Panel", "Buttons", "Chime", "Clients", "ClockWatch", "Systemd", "EventLoop",
                     "MQTTBridge", "MQTTLink", "SyncGroup", "WebPage", "HTTPServer"] {
            #expect(objects.contains { $0.type == name }, "no \(name) in \(objects.map(\.type))")
        }
    }

    /// Each part writes its own block; clients read the keys they always read (README.md
    /// "status carries …", docs/MQTT.md, SYNC.md, WEB.md): the same keys at the top level, the
    /// same shapes, and a client's decoding keeps every block.
    @Test("status: the core's keys and each part's block, at the top level as clients read them")
    func statusKeysAreTheDocumentedOnes() throws {
        let d = try InProcessDaemon(config: Self.network)
        defer { d.stop() }
        let status = try #require(try d.request(#"{"op":"status"}"#)?["status"] as? [String: Any])
        let core: Set = ["pid", "version", "uptime_seconds", "wakeups", "frames", "bus_bytes", "bus_errors", "panel_present",
                         "panel_on", "bus", "transport", "size", "presentation", "panel"]
        let blocks: Set = ["clients", "clock_behind", "night", "mqtt", "sync", "web"]
        #expect(Set(status.keys) == core.union(blocks), "\(status.keys.sorted())")
        #expect(status["clients"] is Int && status["clock_behind"] as? Bool == false)
        #expect((status["mqtt"] as? [String: Any])?["client_id"] as? String == "desk")
        #expect((status["sync"] as? [String: Any])?["group"] as? String == "desks")
        #expect((status["night"] as? [String: Any])?["source"] as? String == "schedule")
        let readme = try String(contentsOfFile: Repo.root + "/README.md", encoding: .utf8)
        for key in core.union(["clients", "clock_behind", "chime_pulses", "store_error", "mqtt", "night"]) {
            #expect(readme.contains("`\(key)`"), "README.md does not list status's \(key)")
        }
        // A client decodes the answer and encodes it back: every block survives, none is added.
        let c = try d.client()
        c.send(#"{"op":"status"}"# + "\n")
        let line = try #require(c.readLine())
        let decoded = try JSONDecoder().decode(ControlResponse.self, from: Data(line.utf8))
        let st = try #require(decoded.status)
        #expect(st.mqtt?.clientID == "desk" && st.sync?.group == "desks" && st.web != nil && st.night != nil)
        let again = try JSONSerialization.jsonObject(with: JSONEncoder().encode(st)) as? [String: Any]
        #expect(Set(again?.keys ?? [:].keys) == core.union(blocks))
    }

    @Test("a part's block cannot take a key of the core's or another part's")
    func blockKeysHaveOneOwner() {
        var s = DaemonStatus(pid: 1, version: "v", uptimeSeconds: 0, wakeups: 0, frames: 0, busBytes: 0, busErrors: 0,
                             panelPresent: true, panelOn: true, bus: "mock", size: "128x64", presentation: "compact")
        let first = s.set("night", ["a": 1])
        let second = s.set("night", ["a": 2])
        let core = s.set("bus_bytes", 3)
        #expect(first)
        #expect(!second, "a second writer of one key")
        #expect(!core, "a key of the core's")
        #expect(s.block("night", as: [String: Int].self) == ["a": 1] && s.busBytes == 0)
    }

    @Test("a tuple counts as its elements, set or nil; a named struct as one field")
    func tuplesCountTheirElements() {
        struct Named { var a = 1, b = 2, c = 3 }
        let set: (Int, String, Bool)? = (1, "", true)
        let unset: (a: Int, b: (Int, Int), c: [Int: Int])? = nil
        #expect(InProcessDaemon.fieldCount((1, 2, 3, 4, 5)) == 5)
        #expect(InProcessDaemon.fieldCount(set as Any) == 3)
        #expect(InProcessDaemon.fieldCount(unset as Any) == 3)
        #expect(InProcessDaemon.fieldCount(Named()) == 1)
        #expect(InProcessDaemon.fieldCount(Optional<Int>.none as Any) == 1)
    }

    @Test("without [mqtt] and [web] there is no network part at all")
    func noNetworkWithoutMQTT() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        let types = d.objects().map(\.type)
        for name in ["MQTTBridge", "MQTTLink", "SyncGroup", "WebPage", "HTTPServer"] { #expect(!types.contains(name), "\(name) in \(types)") }
        #expect(types.contains("Clients") && types.contains("Panel"))
    }
}

/// A part's slice of the state file belongs to it; while the part is off, nothing loses it.
@Suite("a part's slice of the state file")
struct SavedSliceTests {
    @Test("a sync ledger in the file outlives a start without [sync]: written back as it was")
    func aSliceWhosePartIsOffIsKept() throws {
        let scratch = makeTempDir()
        defer { removeTree(scratch) }
        var ledger = SyncLedger(device: "den")
        _ = ledger.record("tea", activity: nil, now: Instant(milliseconds: 1_700_000_000_000))
        try FileStore(directory: scratch, now: { Instant(milliseconds: 1_700_000_000_000) })
            .saveNow([], slices: [SavedLedger.key: SavedLedger(ledger: ledger)])
        let text = try String(contentsOfFile: scratch + "/activities.json", encoding: .utf8)
        let d = try InProcessDaemon(state: text)
        defer { d.stop() }
        #expect(d.activities(try d.request(#"{"op":"start","seconds":60}"#)) == ["meditation"])
        // The start's write is done once its answer came; the file holds the activity and the ledger.
        let file = try #require(FileManager.default.contents(atPath: d.stateFile))
        let json = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        #expect((json["activities"] as? [Any])?.count == 1)
        let back = try JSONDecoder().decode(SyncLedger.self, from: JSONSerialization.data(withJSONObject: json["sync"] ?? [:]))
        #expect(back == ledger)
    }
}
