import IsletInput
import IsletLinux
import IsletCore

/// A rejected `key = value` of the config, before the daemon's parser adds file:line.
/// The message says what was wrong and lists what is accepted.
public struct ConfigValueError: Error, Hashable, Sendable, CustomStringConvertible {
    public var key: String
    public var value: String
    public var problem: String
    public var accepted: [String]

    public init(key: String, value: String, problem: String, accepted: [String]) {
        self.key = key
        self.value = value
        self.problem = problem
        self.accepted = accepted
    }

    public var description: String {
        "\(key) = \(value): \(problem)" + (accepted.isEmpty ? "" : "; accepted: " + accepted.joined(separator: ", "))
    }
}

/// The `[buttons]` and `[chime]` sections of the config. The daemon's parser hands every
/// `key = value` of those sections to `set(section:key:value:)` (or `set(key:value:)` /
/// `setChime(key:value:)`), then calls `validate()` once the file is read.
///
/// Whether buttons are read at all (gpio, mock, none) is the daemon's `[daemon] buttons` option.
///
/// [buttons] keys (defaults in brackets):
///   chip = path, name, label or number       [""]   search every chip by line name
///   bias = pull-up | pull-down | disabled | as-is   [pull-up]
///   active_low = true | false                [true] a button between GPIO and GND reads low
///   debounce_ms = 0…1000                     [30]
///   long_press_ms = 100…10000                [800]  must exceed debounce_ms
///   button.NAME = LINE | none                [toggle=GPIO17, reset=GPIO27, expand=GPIO22]
///   on.NAME.GESTURE = ACTION[@TIMER] | none  [on.toggle.press = toggle, on.toggle.long_press
///                                             = expand, on.reset.long_press = reset,
///                                             on.expand.press = expand]
/// [chime] keys:
///   line = LINE | none                       [none] no chime
///   chip = chip for a bare offset            [""]
///   active_low = true | false                [false] a buzzer or LED on GPIO → GND
///   cycle_end = ON,OFF,ON… ms | none         [200]
///   completion = ON,OFF,ON… ms | none        [200,100,200,100,400]
public struct ButtonConfig: Hashable, Sendable {
    public var chip: String?
    public var bias: GPIOBias = .pullUp
    public var activeLow = true
    public var debounceMilliseconds: UInt64 = GestureRecognizer.Settings.defaultDebounceMilliseconds
    public var longPressMilliseconds: UInt64 = GestureRecognizer.Settings.defaultLongPressMilliseconds
    /// A button and its line as written ("GPIO17", "gpiochip0:17").
    public struct Line: Hashable, Sendable {
        public var button: String
        public var line: String
        public init(button: String, line: String) {
            self.button = button
            self.line = line
        }
    }

    /// The buttons in definition order.
    public private(set) var lines: [Line] = ButtonConfig.defaultLines
    public var map: ButtonMap = .defaults
    public var chime = ChimeConfig()

    public static let defaultLines: [Line] = [
        Line(button: "toggle", line: "GPIO17"), Line(button: "reset", line: "GPIO27"),
        Line(button: "expand", line: "GPIO22"),
    ]
    public static let sections = ["buttons", "chime"]

    public init() {}

    /// The button names in definition order.
    public var buttons: [String] { lines.map(\.button) }

    /// One key of `[section]`; unknown sections are the caller's bug, reported like a bad key.
    public mutating func set(section: String, key: String, value: String) throws(ConfigValueError) {
        switch section {
        case "buttons": try set(key: key, value: value)
        case "chime": try chime.set(key: key, value: value)
        default: throw ConfigValueError(key: "[\(section)]", value: "", problem: "not a button or chime section",
                                        accepted: Self.sections.map { "[\($0)]" })
        }
    }

    /// One `[chime]` key.
    public mutating func setChime(key: String, value: String) throws(ConfigValueError) {
        try chime.set(key: key, value: value)
    }

    static let keys = ["chip", "bias", "active_low", "debounce_ms", "long_press_ms",
                       "button.NAME", "on.NAME.GESTURE"]

    /// One `[buttons]` key.
    public mutating func set(key rawKey: String, value rawValue: String) throws(ConfigValueError) {
        let key = rawKey.configTrimmed, value = rawValue.configTrimmed
        func bad(_ problem: String, _ accepted: [String]) -> ConfigValueError {
            ConfigValueError(key: key, value: value, problem: problem, accepted: accepted)
        }
        switch key {
        case "chip":
            chip = value.isEmpty ? nil : value
        case "bias":
            guard let b = GPIOBias(rawValue: value) else { throw bad("unknown bias", GPIOBias.allCases.map(\.rawValue)) }
            bias = b
        case "active_low":
            activeLow = try parseBool(key: key, value: value)
        case "debounce_ms":
            debounceMilliseconds = try parseMilliseconds(key: key, value: value, range: 0...1000)
        case "long_press_ms":
            longPressMilliseconds = try parseMilliseconds(key: key, value: value, range: 100...10_000)
        default:
            if key.hasPrefix("button.") {
                let name = String(key.dropFirst("button.".count))
                try checkButtonName(name, key: key, value: value)
                if value == "none" {
                    lines.removeAll { $0.button == name }
                    map.unbindAll(button: name)
                    return
                }
                do { _ = try GPIOLineSpec.parse(value, defaultChip: chip ?? "chip") } catch {
                    throw bad(error.description, ["a line name (GPIO17)", "chip:offset (gpiochip0:17)",
                                                  "an offset with `chip` set (17)", "none"])
                }
                if let i = lines.firstIndex(where: { $0.button == name }) { lines[i].line = value } else { lines.append(Line(button: name, line: value)) }
            } else if key.hasPrefix("on.") {
                let parts = key.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count == 3 else { throw bad("write on.BUTTON.GESTURE", ["on.toggle.press", "on.reset.long_press"]) }
                let name = String(parts[1])
                try checkButtonName(name, key: key, value: value)
                guard let gesture = Gesture(rawValue: String(parts[2])) else {
                    throw bad("unknown gesture \"\(parts[2])\"", Gesture.allCases.map(\.rawValue))
                }
                if value == "none" { map.unbind(button: name, gesture: gesture); return }
                let pieces = value.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
                guard let action = ButtonAction(buttonAction: String(pieces[0]).configTrimmed) else {
                    throw bad("unknown action", Verb.buttonActions.map(\.rawValue) + ["ACTION@TIMER", "none"])
                }
                var timer: String?
                if pieces.count == 2 {
                    let t = String(pieces[1]).configTrimmed
                    guard ActivityAttributes.isValidTimerID(t) else {
                        throw bad("a timer id is \(ActivityAttributes.timerIDRule)", ["\(action)@meditation"])
                    }
                    timer = t
                }
                map.bind(ButtonBinding(button: name, gesture: gesture, action: action, timerID: timer))
            } else {
                throw bad("unknown [buttons] key", Self.keys)
            }
        }
    }

    /// Checks what needs the whole section: every binding's button has a line, long presses
    /// outlast the debounce, no line is used twice, bare offsets have a chip.
    public func validate() throws(ConfigValueError) {
        let names = Set(buttons)
        for b in map.bindings where !names.contains(b.button) {
            throw ConfigValueError(key: "on.\(b.button).\(b.gesture)", value: "\(b.action)",
                                   problem: "no button \"\(b.button)\" is defined; add button.\(b.button) = LINE",
                                   accepted: buttons)
        }
        if longPressMilliseconds <= debounceMilliseconds {
            throw ConfigValueError(key: "long_press_ms", value: "\(longPressMilliseconds)",
                                   problem: "must be longer than debounce_ms (\(debounceMilliseconds))",
                                   accepted: ["\(debounceMilliseconds + 1)…10000"])
        }
        var seen: [String: String] = [:]
        var uses = lines.map { (user: "button.\($0.button)", line: $0.line, chip: chip) }
        if let l = chime.line, !chime.isMock { uses.append(("[chime] line", l, chime.chip)) }
        for u in uses {
            let spec: GPIOLineSpec
            do { spec = try GPIOLineSpec.parse(u.line, defaultChip: u.chip) } catch {
                throw ConfigValueError(key: u.user, value: u.line, problem: error.description,
                                       accepted: ["chip:offset (gpiochip0:17)", "a line name (GPIO17)"])
            }
            if let other = seen[spec.description] {
                throw ConfigValueError(key: u.user, value: u.line, problem: "\(other) already uses this line",
                                       accepted: ["another line", "none"])
            }
            seen[spec.description] = u.user
        }
    }

    /// The lines to request from `GPIOButtons` (call after `validate()`).
    public func gpioLines() throws(GPIOError) -> [GPIOButtons.Line] {
        var out: [GPIOButtons.Line] = []
        for l in lines { out.append(GPIOButtons.Line(button: l.button, spec: try GPIOLineSpec.parse(l.line, defaultChip: chip))) }
        return out
    }

    static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 32
            && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }

    private func checkButtonName(_ name: String, key: String, value: String) throws(ConfigValueError) {
        guard Self.isName(name) else {
            throw ConfigValueError(key: key, value: value,
                                   problem: "a button name is 1 to 32 characters of a-z, 0-9, '-' or '_'",
                                   accepted: ["toggle", "reset", "expand", "pause", "…"])
        }
    }
}

/// The `[chime]` section: an optional output pulsed at cycle end and at completion.
public struct ChimeConfig: Hashable, Sendable {
    /// nil: no chime.
    public var line: String?
    public var chip: String?
    public var activeLow = false
    public var cycleEnd: ChimePattern? = ChimePattern.defaultCycleEnd
    public var completion: ChimePattern? = ChimePattern.defaultCompletion

    public init() {}

    static let keys = ["line", "chip", "active_low", "cycle_end", "completion"]

    public var isEnabled: Bool { line != nil && (cycleEnd != nil || completion != nil) }

    /// `line = mock`: no GPIO, the daemon counts the pulses in `status` (tests, the demo).
    public var isMock: Bool { line == "mock" }

    /// The line to request as output (nil when the chime is off or a mock).
    public func gpioLine() throws(GPIOError) -> GPIOLineSpec? {
        guard !isMock else { return nil }
        return try line.map { l throws(GPIOError) in try GPIOLineSpec.parse(l, defaultChip: chip) }
    }

    /// The pattern for a cue, or nil when that cue is silent.
    public func pattern(for cue: ChimeCue) -> ChimePattern? {
        switch cue {
        case .cycleEnd, .alert: cycleEnd
        case .completion: completion
        case .silence: nil
        }
    }

    public mutating func set(key rawKey: String, value rawValue: String) throws(ConfigValueError) {
        let key = rawKey.configTrimmed, value = rawValue.configTrimmed
        switch key {
        case "line":
            if value == "none" || value.isEmpty { line = nil; return }
            if value == "mock" { line = value; return }
            do { _ = try GPIOLineSpec.parse(value, defaultChip: chip ?? "chip") } catch {
                throw ConfigValueError(key: key, value: value, problem: error.description,
                                       accepted: ["a line name (GPIO18)", "chip:offset (gpiochip0:18)", "none", "mock"])
            }
            line = value
        case "chip":
            chip = value.isEmpty ? nil : value
        case "active_low":
            activeLow = try parseBool(key: key, value: value)
        case "cycle_end", "completion":
            var pattern: ChimePattern?
            if value != "none" {
                do { pattern = try ChimePattern.parse(value) } catch {
                    throw ConfigValueError(key: key, value: value, problem: error.reason,
                                           accepted: ["ON,OFF,ON… in milliseconds (200,100,200)", "none"])
                }
            }
            if key == "cycle_end" { cycleEnd = pattern } else { completion = pattern }
        default:
            throw ConfigValueError(key: key, value: value, problem: "unknown [chime] key", accepted: Self.keys)
        }
    }
}

fileprivate func parseBool(key: String, value: String) throws(ConfigValueError) -> Bool {
    switch value.lowercased() {
    case "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default: throw ConfigValueError(key: key, value: value, problem: "not a yes/no value", accepted: ["true", "false", "yes", "no", "on", "off", "1", "0"])
    }
}

fileprivate func parseMilliseconds(key: String, value: String, range: ClosedRange<UInt64>) throws(ConfigValueError) -> UInt64 {
    guard let n = UInt64(value), range.contains(n) else {
        throw ConfigValueError(key: key, value: value, problem: "not a whole number of milliseconds in range",
                               accepted: ["\(range.lowerBound)…\(range.upperBound)"])
    }
    return n
}

fileprivate extension StringProtocol {
    var configTrimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}

extension ButtonInterpreter {
    public init(config: ButtonConfig) {
        self.init(map: config.map, debounceMilliseconds: config.debounceMilliseconds,
                  longPressMilliseconds: config.longPressMilliseconds)
    }
}
