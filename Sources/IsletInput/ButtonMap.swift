import IsletCore

/// What a button gesture asks of a timer: a verb of the table a button may do
/// (`Verb.buttonOrder`). The config is the one place an action is read; it takes only those.
public typealias ButtonAction = Verb

extension Verb {
    /// The action a config value names, when a button may do it.
    public init?(buttonAction name: String) {
        guard let v = Verb(rawValue: name), v.buttonOrder != nil else { return nil }
        self = v
    }

    /// The core's intent for this action; `defaultSession` is what a toggle starts from idle.
    public func intent(defaultSession: ActivityAttributes) -> Intent {
        Intent(self, session: defaultSession, dismissal: .default)
    }
}

/// One entry of the map: (button, gesture) → action, optionally aimed at one timer.
public struct ButtonBinding: Hashable, Sendable, CustomStringConvertible {
    public var button: String
    public var gesture: Gesture
    public var action: ButtonAction
    /// nil: the most recently started activity.
    public var timerID: String?

    public init(button: String, gesture: Gesture, action: ButtonAction, timerID: String? = nil) {
        self.button = button
        self.gesture = gesture
        self.action = action
        self.timerID = timerID
    }

    public var description: String {
        "\(button).\(gesture) = \(action)" + (timerID.map { "@\($0)" } ?? "")
    }
}

/// The configurable map from (button, gesture) to action. At most one action per pair.
public struct ButtonMap: Hashable, Sendable {
    /// In the order they were bound.
    public private(set) var bindings: [ButtonBinding]

    public init(_ bindings: [ButtonBinding] = []) {
        self.bindings = []
        for b in bindings { bind(b) }
    }

    /// Toggle on a press of `toggle`, expand on its long press, reset only on a long press of
    /// `reset` (a brush cannot reset), expand on a press of `expand`.
    public static let defaults = ButtonMap([
        ButtonBinding(button: "toggle", gesture: .press, action: .toggle),
        ButtonBinding(button: "toggle", gesture: .longPress, action: .expand),
        ButtonBinding(button: "reset", gesture: .longPress, action: .reset),
        ButtonBinding(button: "expand", gesture: .press, action: .expand),
    ])

    public subscript(button: String, gesture: Gesture) -> ButtonBinding? {
        bindings.first { $0.button == button && $0.gesture == gesture }
    }

    /// Adds or replaces the binding of its (button, gesture).
    public mutating func bind(_ binding: ButtonBinding) {
        unbind(button: binding.button, gesture: binding.gesture)
        bindings.append(binding)
    }

    public mutating func unbind(button: String, gesture: Gesture) {
        bindings.removeAll { $0.button == button && $0.gesture == gesture }
    }

    public mutating func unbindAll(button: String) {
        bindings.removeAll { $0.button == button }
    }

    /// The binding a gesture triggers, if any.
    public func binding(for event: GestureEvent) -> ButtonBinding? { self[event.button, event.gesture] }

    /// Buttons with both a press and a long press bound: their press must wait for the release.
    public var buttonsWithPressAndLongPress: Set<String> {
        Set(bindings.filter { $0.gesture == .longPress }.map(\.button))
            .intersection(bindings.filter { $0.gesture == .press }.map(\.button))
    }
}

/// A gesture that maps to an action: what the daemon turns into an intent.
public struct ButtonCommand: Hashable, Sendable, CustomStringConvertible {
    public var action: ButtonAction
    /// nil: act on the most recently started activity.
    public var timerID: String?
    public var event: GestureEvent

    public init(action: ButtonAction, timerID: String?, event: GestureEvent) {
        self.action = action
        self.timerID = timerID
        self.event = event
    }

    public var description: String { "\(event) → \(action)" + (timerID.map { "@\($0)" } ?? "") }
}

/// Edges in, commands out: the recognizer and the map together, pure like both.
/// The daemon feeds `handle(_:)` with what a `ButtonSource` read, wakes at `nextDeadline`
/// (monotonic ns) to call `advance(to:)`, and applies each command's intent.
public struct ButtonInterpreter: Hashable, Sendable {
    public var recognizer: GestureRecognizer
    public var map: ButtonMap

    public init(map: ButtonMap = .defaults,
                debounceMilliseconds: UInt64 = GestureRecognizer.Settings.defaultDebounceMilliseconds,
                longPressMilliseconds: UInt64 = GestureRecognizer.Settings.defaultLongPressMilliseconds) {
        self.map = map
        recognizer = GestureRecognizer(settings: .init(
            debounceMilliseconds: debounceMilliseconds, longPressMilliseconds: longPressMilliseconds,
            pressOnRelease: map.buttonsWithPressAndLongPress))
    }

    public var nextDeadline: UInt64? { recognizer.nextDeadline }

    public mutating func handle(_ edges: [ButtonEdge]) -> [ButtonCommand] {
        commands(recognizer.feed(edges))
    }

    public mutating func advance(to now: UInt64) -> [ButtonCommand] {
        commands(recognizer.advance(to: now))
    }

    private func commands(_ events: [GestureEvent]) -> [ButtonCommand] {
        events.compactMap { e in
            map.binding(for: e).map { ButtonCommand(action: $0.action, timerID: $0.timerID, event: e) }
        }
    }
}
