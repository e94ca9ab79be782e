import Testing

/// The daemon holds parts that own their state, not their fields (docs/ARCHITECTURE.md): a
/// new capability is one more part, so the daemon's own list stays short and every part small.
@Suite("the daemon is a few parts")
struct DaemonPartsTests {
    @Test("the daemon holds fewer than 12 parts, each an object of at most 15 fields")
    func partsOwnTheirState() throws {
        let d = try InProcessDaemon()
        defer { d.stop() }
        let layout = d.layout()
        #expect(layout.count < 12, "the daemon holds \(layout.map(\.name))")
        for part in layout {
            let fields = try #require(part.fields, "\(part.name) is a plain value, not a part that owns its state")
            #expect(fields <= 15, "\(part.name) holds \(fields) fields")
        }
        // The parts the architecture names are there (a rename must update the doc too).
        for name in ["book", "panel", "buttons", "chime", "clients", "clockWatch", "systemd", "loop"] {
            #expect(layout.contains { $0.name == name }, "no part \(name) in \(layout.map(\.name))")
        }
    }
}
