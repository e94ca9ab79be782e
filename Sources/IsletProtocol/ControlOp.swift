import IsletCore

/// The operations a client may ask for: the verbs of the table (IsletCore's `Verb`), and the
/// ops that ask nothing of a timer.
public enum ControlOp: Hashable, Sendable, CaseIterable, RawRepresentable {
    case verb(Verb)
    case status, watch, press, testPattern, brightness

    /// In the order `unknown_op` lists them: the verbs, then the rest.
    public static var allCases: [ControlOp] { Verb.allCases.map(ControlOp.verb) + [.status, .watch, .press, .testPattern, .brightness] }

    public init?(rawValue: String) {
        if let v = Verb(rawValue: rawValue) { self = .verb(v); return }
        switch rawValue {
        case "status": self = .status
        case "watch": self = .watch
        case "press": self = .press
        case "test_pattern": self = .testPattern
        case "brightness": self = .brightness
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
        }
    }
}
