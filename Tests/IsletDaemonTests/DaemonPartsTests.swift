import Testing
import IsletSystem

/// The daemon holds parts that own their state, not their fields (docs/ARCHITECTURE.md): a
/// new capability is one more part, so the daemon and every part stay small. Walked with
/// `[mqtt]` and `[sync]` on, recursively, so a part hidden inside another is counted too.
@Suite("the daemon is a few parts")
struct DaemonPartsTests {
    /// A broker nobody answers (the kernel refuses loopback port 1): the bridge, its link and
    /// the sync group are all built.
    /// The page listens on a loopback port of its own (the process id keeps parallel runs apart).
    static let network = "[display]\nbus = mock\n[mqtt]\nurl = mqtt://127.0.0.1:1\nclient_id = desk\n[sync]\ngroup = desks\n"
        + "[web]\nlisten = 127.0.0.1:\(20_000 + Int(Identity.processID) % 20_000)\n"

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
