import IsletCore

/// The operations a client may ask for: the verbs of the table (IsletCore's `Verb`), and the
/// ops that ask nothing of a timer.
public enum ControlOp: Hashable, Sendable, CaseIterable, RawRepresentable {
    case verb(Verb)
    case status, watch, press, testPattern, brightness
    /// The page's settings overlay (docs/WEB.md "Settings"): read, set a key, reset a key to the
    /// file's value, and the backup's export and import.
    case settings, settingsSet, settingsReset, settingsExport, settingsImport

    /// In the order `unknown_op` lists them: the verbs, then the rest.
    public static var allCases: [ControlOp] {
        Verb.allCases.map(ControlOp.verb) + [.status, .watch, .press, .testPattern, .brightness]
            + [.settings, .settingsSet, .settingsReset, .settingsExport, .settingsImport]
    }

    /// The settings ops: they act on the daemon's settings, never on a timer.
    public var isSettings: Bool {
        switch self {
        case .settings, .settingsSet, .settingsReset, .settingsExport, .settingsImport: true
        case .verb, .status, .watch, .press, .testPattern, .brightness: false
        }
    }

    public init?(rawValue: String) {
        if let v = Verb(rawValue: rawValue) { self = .verb(v); return }
        switch rawValue {
        case "status": self = .status
        case "watch": self = .watch
        case "press": self = .press
        case "test_pattern": self = .testPattern
        case "brightness": self = .brightness
        case "settings": self = .settings
        case "settings_set": self = .settingsSet
        case "settings_reset": self = .settingsReset
        case "settings_export": self = .settingsExport
        case "settings_import": self = .settingsImport
        default: return nil
        }
    }

    /// The wire name.
    public var rawValue: String {
        switch self {
        case .verb(let v): v.rawValue
        case .status: "status"
        case .watch: "watch"
        case .press: "press"
        case .testPattern: "test_pattern"
        case .brightness: "brightness"
        case .settings: "settings"
        case .settingsSet: "settings_set"
        case .settingsReset: "settings_reset"
        case .settingsExport: "settings_export"
        case .settingsImport: "settings_import"
        }
    }
}
