import IsletSettings
import IsletSystem
import IsletProtocol
import IsletCore
import IsletDisplay
import IsletFrame

/// Where frames go: the emulated panel, or a Linux I²C bus device.
public enum BusSpec: Hashable, Sendable, CustomStringConvertible {
    case mock
    case device(String)
    public var description: String {
        switch self {
        case .mock: "mock"
        case .device(let p): p
        }
    }
}

public enum ButtonsMode: String, Sendable, CaseIterable { case none, mock, gpio }
public enum PreviewMode: String, Sendable, CaseIterable { case none, terminal }
/// What SIGTERM leaves on the panel.
public enum ExitDisplay: String, Sendable, CaseIterable { case off, keep }

/// Everything the daemon reads from its config file and command line. Defaults are the
/// documented ones (README.md, "Configuration").
public struct DaemonConfig: Sendable {
    // [daemon]
    public var socketPath: String?          // nil: the default for this user
    public var socketGroup: String?
    public var socketMode: UInt32 = 0o660
    public var stateDir: String?            // nil: the default for this user
    public var logLevel: LogLevel = .info
    public var buttons: ButtonsMode = .none
    // [display]
    public var bus: BusSpec = .device("/dev/i2c-1")
    public var address: Int = 0x3C
    public var controller: ControllerKind = .ssd1306
    public var width: Int = 128
    public var height: Int = 64
    public var onExit: ExitDisplay = .off
    /// How writes cross the bus; nil (auto): plain I²C when the adapter offers it, else SMBus.
    public var transport: I2CTransport?
    /// 180 for a panel mounted upside down (the controller mirrors both scans; no run-time cost).
    public var rotation: Rotation = .deg0
    public var expandSeconds: Int = 5
    public var pixelShiftMinutes: Int = 0
    public var capture: String?
    public var preview: PreviewMode = .none
    /// A module wired differently from the common one (column_offset, display_offset, multiplex).
    public var panelAdjustments = PanelAdjustments()
    /// 81h for the panel; nil: the module's own value from the controller table.
    public var contrast: UInt8?
    /// Seconds the test pattern shows at start-up (0: none).
    public var testPatternSeconds: Int = 0
    /// Where each [display] key was set ("file:line" or "--flag"), for errors that need several keys.
    public var origins: [String: String] = [:]
    /// The text each key was given, by `section.key` (the settings view's "file value").
    public var texts: [String: String] = [:]
    /// Test seam (mock bus only): the bus fails from `start` ms after start-up for `length` ms.
    public var mockUnplug: (startMs: Int64, lengthMs: Int64)?
    // [session]
    public var session = SessionDefaults()
    /// `[buttons]` and `[chime]`, interpreted key by key by the buttons module.
    public var buttonConfig = ButtonConfig()
    /// Each part's own section (`[mqtt]`, `[web]`, …), by its settings type: the daemon's
    /// registry names the types, each part reads its own (docs/ARCHITECTURE.md "Adding a part").
    public var parts: PartSections

    /// The defaults; `parts` are the settings types of the parts there are (the registry's).
    public init(parts: [any PartSettings.Type] = []) { self.parts = PartSections(parts) }
}

extension DaemonConfig {
    /// A bound as a person writes it: `20`, `0.05`.
    static func plain(_ d: Double) -> String { StrictJSON.plain(d) }

    /// The core's keys by section (each part's are its settings type's).
    public static let coreKeys: [String: [String]] = [
        "daemon": ["socket", "socket_group", "socket_mode", "state_dir", "log_level", "buttons"],
        "display": ["bus", "address", "controller", "size", "rotation", "on_exit", "expand_seconds",
                    "pixel_shift_minutes", "capture", "preview", "column_offset", "display_offset", "multiplex",
                    "contrast", "test_pattern_seconds", "transport"],
        "session": ["minutes", "cycles", "language", "cycle_end_seconds", "title", "relevance", "kind", "stale_after_seconds"],
    ]

    /// Every key by section, the parts' included, for error messages and docs.
    public var keys: [String: [String]] {
        var k = Self.coreKeys
        for t in parts.types { k[t.section, default: []].append(contentsOf: t.keys) }
        return k
    }

    /// Every section, in the order the docs give them.
    public var sections: [String] { ["daemon", "display", "session", "buttons", "chime"] + parts.sectionNames.sorted() }

    /// Sections whose keys another module interprets.
    public static let delegatedSections: Set<String> = ["buttons", "chime"]

    /// Sets one key; `origin` names the place for errors ("isletd.conf:12" or "--bus").
    public mutating func set(section: String, key: String, value: String, origin: String) throws(ConfigError) {
        func bad(_ accepted: String) -> ConfigError {
            ConfigError(origin, "\(section).\(key) = \"\(value)\" is not valid; accepted: \(accepted)")
        }
        func choice<E: RawRepresentable & CaseIterable>(_ t: E.Type) throws(ConfigError) -> E where E.RawValue == String {
            guard let v = E(rawValue: value) else { throw bad(E.allCases.map(\.rawValue).joined(separator: ", ")) }
            return v
        }
        func int(_ range: ClosedRange<Int>) throws(ConfigError) -> Int {
            guard let v = Int(value), range.contains(v) else { throw bad("a whole number from \(range.lowerBound) to \(range.upperBound)") }
            return v
        }
        func number(_ range: ClosedRange<Double>) throws(ConfigError) -> Double {
            guard let v = Double(value), v.isFinite, range.contains(v) else {
                throw bad("a number from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound))")
            }
            return v
        }
        func path() throws(ConfigError) -> String {
            guard !value.isEmpty, !value.contains("\0") else { throw bad("a file path") }
            return value
        }
        origins["\(section).\(key)"] = origin
        texts["\(section).\(key)"] = value
        switch (section, key) {
        case ("daemon", "socket"): socketPath = try path()
        case ("daemon", "socket_group"): socketGroup = value.isEmpty ? nil : value
        case ("daemon", "socket_mode"):
            guard let m = UInt32(value, radix: 8), m <= 0o777 else { throw bad("an octal mode such as 0660") }
            socketMode = m
        case ("daemon", "state_dir"): stateDir = try path()
        case ("daemon", "log_level"):
            guard let l = LogLevel(name: value) else { throw bad(LogLevel.allCases.map(\.name).joined(separator: ", ")) }
            logLevel = l
        case ("daemon", "buttons"): buttons = try choice(ButtonsMode.self)
        case ("display", "bus"):
            if value == "mock" { bus = .mock }
            else if value.hasPrefix("/dev/") { bus = .device(value) }
            else { throw bad("mock or a device path such as /dev/i2c-1") }
        case ("display", "address"):
            let v = value.lowercased().hasPrefix("0x") ? Int(value.dropFirst(2), radix: 16) : Int(value)
            guard let a = v, (0x03...0x77).contains(a) else { throw bad("a 7-bit I2C address, hex (0x3c) or decimal (60), 0x03 to 0x77") }
            address = a
        case ("display", "controller"): controller = try choice(ControllerKind.self)
        case ("display", "size"):
            // The one size parser; a panel's height is also whole pages of a controller's RAM.
            guard let s = PanelSize(parsing: value), s.height <= 128, s.height % 8 == 0 else {
                throw bad("WIDTHxHEIGHT, e.g. 128x64 or 128x32 (width 8 to 256, height a multiple of 8 up to 128)")
            }
            width = s.width
            height = s.height
        case ("display", "rotation"):
            // 90 and 270 would need frames rendered at the swapped size; the pill is landscape.
            switch value {
            case "0": rotation = .deg0
            case "180": rotation = .deg180
            default: throw bad("0 or 180 (a panel mounted upside down)")
            }
        case ("display", "on_exit"): onExit = try choice(ExitDisplay.self)
        case ("display", "transport"):
            if value == "auto" { transport = nil } else {
                guard let t = I2CTransport(rawValue: value) else { throw bad("auto, i2c (plain I2C_RDWR writes) or smbus (SMBus I2C-block writes)") }
                transport = t
            }
        case ("display", "expand_seconds"): expandSeconds = try int(1...60)
        case ("display", "pixel_shift_minutes"): pixelShiftMinutes = try int(0...1440)
        case ("display", "capture"): capture = value.isEmpty ? nil : try path()
        case ("display", "preview"): preview = try choice(PreviewMode.self)
        // Ranges that depend on the controller and size are checked in `validated`, which knows both.
        case ("display", "column_offset"): panelAdjustments.columnOffset = try int(0...255)
        case ("display", "display_offset"): panelAdjustments.displayOffset = try int(0...127)
        case ("display", "multiplex"): panelAdjustments.multiplexLines = try int(1...128)
        case ("display", "contrast"): contrast = UInt8(try int(0...255))
        case ("display", "test_pattern_seconds"): testPatternSeconds = try int(0...3600)
        case ("session", "minutes"): session.minutes = try number(0.05...1440)
        case ("session", "cycles"): session.cycles = try int(0...999)
        case ("session", "language"):
            guard (2...16).contains(value.count),
                  value.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0 == "-" || $0 == "_" }) else {
                throw bad("a language code such as en, de, ar, zh-Hans")
            }
            session.language = value
        case ("session", "cycle_end_seconds"): session.cycleEndSeconds = try number(0...600)
        case ("session", "relevance"): session.relevance = try number(ActivityAttributes.relevanceRange)
        case ("session", "kind"):
            switch value {
            case "countdown": session.stopwatch = false
            case "stopwatch": session.stopwatch = true
            default: throw bad("countdown or stopwatch")
            }
        case ("session", "stale_after_seconds"):
            // The core's own rule: a stale mark after at least 1 s; a week is beyond any session.
            // 0 has always meant off, in any spelling of the number ("0", "00", "0.0").
            if value == "off" || Double(value) == 0 { session.staleAfterSeconds = nil }
            else {
                guard let v = Double(value), v.isFinite, (1...604_800).contains(v) else {
                    throw bad("off or 0 (never), or a number of seconds from 1 to 604800 (a week)")
                }
                session.staleAfterSeconds = v
            }
        case ("session", "title"):
            // The rule a start holds the title to: a title the config takes is one a start takes.
            if let v = TextRule.violation(value, field: "title", maximum: ActivityAttributes.maxTitleLength) { throw bad(v.message) }
            session.title = value.isEmpty ? nil : value
        default:
            if try parts.set(ConfigValue(section: section, key: key, text: value, origin: origin)) { return }
            if Self.delegatedSections.contains(section) {
                do { try buttonConfig.set(section: section, key: key, value: value) }
                catch { throw ConfigError(origin, "[\(section)] \(error)") }
                return
            }
            if let known = keys[section] { throw ConfigValue.unknownKey(key, section: section, known: known, origin: origin) }
            throw IniReader.unknownSection(section, sections: sections, origin: origin)
        }
    }

    /// Parses config text on top of `self` (the defaults). `file` names the source in errors.
    public func parsing(_ text: String, file: String) throws(ConfigError) -> DaemonConfig {
        var c = self
        for item in try IniReader.read(text, file: file, sections: sections) {
            switch item {
            case .section(let name, let origin):
                // A part's section turns the part on; the line is where its errors point.
                if try c.parts.take(item) { c.origins[name] = origin }
            case .entry(let section, let key, let value, let origin):
                try c.set(section: section, key: key, value: value, origin: origin)
            }
        }
        do { try c.buttonConfig.validate() }
        catch {
            // The line of the key at fault, when the file set it ("[chime] line" names the chime's).
            let key = error.key == "[chime] line" ? "chime.line" : "buttons.\(error.key)"
            throw ConfigError(c.origins[key] ?? c.origins["chime.\(error.key)"] ?? file, "[buttons]/[chime]: \(error)")
        }
        return c
    }

    /// Checks what needs several keys together (after the file and the flags).
    public func validated(origin: String) throws(ConfigError) -> DaemonConfig {
        if capture != nil, bus != .mock {
            throw ConfigError(origins["display.capture"] ?? origin, "display.capture records the mock bus only; set bus = mock or remove capture")
        }
        // What the file alone decides is checked here, so --check-config catches it and a start
        // fails with 78 (no restart loop) instead of 69 at the socket.
        if let group = socketGroup, Identity.groupID(named: group) == nil {
            throw ConfigError(origins["daemon.socket_group"] ?? origin,
                              "daemon.socket_group = \"\(group)\": no such group on this system (getent group \(group) finds none); create it (groupadd --system \(group)) or leave socket_group empty for the daemon's own group")
        }
        _ = try panelModel(origin: origin)
        for part in parts.present {
            let section = type(of: part).section
            try part.validate(parts) { key in origins[key] ?? origins[section] ?? origin }
        }
        return self
    }

    /// The controller table's row for the configured module, with the user's adjustments checked
    /// against the controller's limits; errors name the line that set the offending key.
    public func panelModel(origin: String) throws(ConfigError) -> PanelModel {
        guard let base = PanelModel.find(controller, width: width, height: height) else {
            let sizes = PanelModel.all.filter { $0.controller.kind == controller }.map { "\($0.width)x\($0.height)" }
            throw ConfigError(origins["display.size"] ?? origins["display.controller"] ?? origin,
                              "no \(controller.rawValue) panel of \(width)x\(height) is known; sizes for it: \(sizes.joined(separator: ", "))")
        }
        switch panelAdjustments.applied(to: base) {
        case .success(let m): return m
        case .failure(let p): throw ConfigError(origins["display.\(p.key.rawValue)"] ?? origin, p.message)
        }
    }
}

extension DaemonPaths {
    /// The paths for a config: its own, else the defaults for this user.
    public static func resolve(_ c: DaemonConfig) -> DaemonPaths {
        DaemonPaths(socket: c.socketPath ?? defaultSocket(), stateDir: c.stateDir ?? defaultStateDir())
    }
}
