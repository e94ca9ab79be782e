/// One part's settings: the section it reads (or the keys it owns in a shared one), how it
/// parses them, what needs them together, and what a reload may change. The daemon's config
/// holds them by type (`PartSections`); the part reads its own, nothing else names them.
public protocol PartSettings: Sendable {
    /// The section (`mqtt`), or the shared section whose `keys` it owns (`display`).
    static var section: String { get }
    static var keys: [String] { get }
    /// Whether the part is there only when its section is (`[mqtt]`), or always (its keys
    /// live in a shared section, with defaults).
    static var presence: SectionPresence { get }
    init()
    /// One key, as read; errors name the file:line and what is accepted.
    mutating func set(_ value: ConfigValue) throws(ConfigError)
    /// What needs the keys together, another part's section, or the files on disk.
    func validate(_ all: PartSections, origin: (String) -> String) throws(ConfigError)
    /// What the systemd unit must open of the network for it (nil: nothing).
    var network: NetworkNeed? { get }
    /// A few words for `--check-config`'s line ("web page on 127.0.0.1:8080"), if it has any.
    var checkSummary: String? { get }
    /// Whether a reload may put new settings in force (false: the running ones stay, and the
    /// change waits for a restart, named in the reload's log line).
    static var reloads: Bool { get }
    /// Equality through the existential, for the reload's comparison.
    func isSame(as other: any PartSettings) -> Bool
}

public enum SectionPresence: Sendable { case withSection, always }

extension PartSettings {
    public static var presence: SectionPresence { .withSection }
    public func validate(_ all: PartSections, origin: (String) -> String) throws(ConfigError) {}
    public var network: NetworkNeed? { nil }
    public var checkSummary: String? { nil }
    public static var reloads: Bool { true }
}

extension PartSettings where Self: Equatable {
    public func isSame(as other: any PartSettings) -> Bool { (other as? Self) == self }
}

/// Every part's settings, by type; a part's section is absent until the file names it.
public struct PartSections: Sendable {
    /// The parts' settings types, in the registry's order.
    public let types: [any PartSettings.Type]
    private var values: [ObjectIdentifier: any PartSettings] = [:]

    public init(_ types: [any PartSettings.Type]) {
        self.types = types
        for t in types where t.presence == .always { values[ObjectIdentifier(t)] = t.init() }
    }

    public subscript<T: PartSettings>(_ type: T.Type) -> T? {
        get { values[ObjectIdentifier(type)] as? T }
        set { values[ObjectIdentifier(type)] = newValue }
    }

    /// The settings present, in the registry's order.
    public var present: [any PartSettings] { types.compactMap { values[ObjectIdentifier($0)] } }

    /// The section headers the parts add.
    public var sectionNames: [String] {
        var names: [String] = []
        for t in types where t.presence == .withSection && !names.contains(t.section) { names.append(t.section) }
        return names
    }

    /// A section header was read: its part is on, with its defaults until its keys follow.
    mutating func open(section: String) {
        for t in types where t.section == section && t.presence == .withSection && values[ObjectIdentifier(t)] == nil {
            values[ObjectIdentifier(t)] = t.init()
        }
    }

    /// Whether a part owns this key; if so it is set.
    public mutating func set(_ v: ConfigValue) throws(ConfigError) -> Bool {
        guard let t = types.first(where: { $0.section == v.section && ($0.presence == .withSection || $0.keys.contains(v.key)) }) else {
            return false
        }
        var s = values[ObjectIdentifier(t)] ?? t.init()
        try s.set(v)
        values[ObjectIdentifier(t)] = s
        return true
    }

    /// Reads the part sections of an ini file's items (the core's are the caller's).
    public mutating func take(_ item: IniReader.Item) throws(ConfigError) -> Bool {
        switch item {
        case .section(let name, _):
            guard sectionNames.contains(name) else { return false }
            open(section: name)
            return true
        case .entry(let section, let key, let value, let origin):
            return try set(ConfigValue(section: section, key: key, text: value, origin: origin))
        }
    }

    /// A reload: the new settings of each part that reloads, the running ones of each that
    /// does not, and the sections that wait for a restart.
    public func reloaded(with new: PartSections) -> (kept: PartSections, waiting: [String]) {
        var kept = new
        var waiting: [String] = []
        for t in types where !t.reloads {
            let id = ObjectIdentifier(t)
            let old = values[id], next = new.values[id]
            let same = switch (old, next) {
            case (nil, nil): true
            case (let a?, let b?): a.isSame(as: b)
            default: false
            }
            if !same { waiting.append(t.section) }
            kept.values[id] = old
        }
        return (kept, waiting)
    }
}
