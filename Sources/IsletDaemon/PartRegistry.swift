import IsletParts
import IsletSettings
import IsletStore
import IsletConfig
import IsletProtocol
import IsletNetwork
import IsletWeb

/// What every part is built from: the configuration, the log and clocks, the daemon's paths,
/// and the slices the state file gave back.
struct PartBuild {
    let config: DaemonConfig
    let env: PartEnvironment
    let paths: DaemonPaths
    let slices: [String: any SavedSlice]

    /// The part's own slice of the state file, if the file held one.
    func slice<T: SavedSlice>(_ type: T.Type) -> T? { slices[T.key] as? T }
}

/// One line of the registry: how a part is built, and the config sections and state-file
/// slices it owns.
struct PartEntry: Sendable {
    let settings: [any PartSettings.Type]
    let slices: [any SavedSlice.Type]
    /// Built after every other part (the control socket: a start-up failure elsewhere leaves no
    /// socket file behind); its place in the list is kept.
    let opensLast: Bool
    let make: @Sendable (PartBuild) throws(DaemonStartError) -> [any DaemonPart]

    init(settings: [any PartSettings.Type] = [], slices: [any SavedSlice.Type] = [], opensLast: Bool = false,
         _ make: @escaping @Sendable (PartBuild) throws(DaemonStartError) -> [any DaemonPart]) {
        self.settings = settings
        self.slices = slices
        self.opensLast = opensLast
        self.make = make
    }
}

/// Every part there is, one line each (docs/ARCHITECTURE.md "Adding a part"), in the order the
/// turn's outcome reaches them: the inputs, the socket's answers and watchers, the page, the
/// network, systemd last. A part that is off for this config builds none.
package enum PartRegistry {
    static let entries: [PartEntry] = [
        PartEntry { b throws(DaemonStartError) in [try Buttons(b.env, config: b.config)] },
        PartEntry { b in [ClockWatch(b.env)] },
        PartEntry { b in [Chime(b.env, config: b.config)] },
        PartEntry(settings: [NightSettings.self]) { b in [NightMode(b.env, config: b.config)] },
        PartEntry(opensLast: true) { b throws(DaemonStartError) in [try Clients(b.env, config: b.config, socket: b.paths.socket)] },
        PartEntry(settings: [WebSettings.self]) { b throws(DaemonStartError) in try WebPage.make(b.config, b.env) },
        PartEntry(settings: [MQTTSettings.self, SyncSettings.self], slices: [SavedLedger.self]) { b throws(DaemonStartError) in
            try NetworkParts.make(b.config, b.env, restoring: b.slice(SavedLedger.self)) },
        PartEntry(settings: [HostSettings.self]) { b in HostReport.make(b.config, b.env) },
        PartEntry { _ in [Systemd()] },
    ]

    /// The parts' settings types: the config's sections beyond the core's.
    package static let settings: [any PartSettings.Type] = entries.flatMap(\.settings)
    /// The parts' slices of the state file.
    package static let slices: [any SavedSlice.Type] = entries.flatMap(\.slices)

    /// Every part for this configuration, in the list's order.
    static func build(_ b: PartBuild) throws(DaemonStartError) -> [any DaemonPart] {
        var built = [[any DaemonPart]](repeating: [], count: entries.count)
        for (i, e) in entries.enumerated() where !e.opensLast { built[i] = try e.make(b) }
        for (i, e) in entries.enumerated() where e.opensLast { built[i] = try e.make(b) }
        return built.flatMap { $0 }
    }
}
