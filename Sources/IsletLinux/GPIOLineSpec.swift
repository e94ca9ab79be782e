/// One line of a chip as the kernel describes it.
public struct GPIOLineInfo: Hashable, Sendable {
    /// "" when the line has no name.
    public var name: String
    /// Who holds the line ("" when free).
    public var consumer: String
    public var used: Bool
    public init(name: String, consumer: String = "", used: Bool = false) {
        self.name = name
        self.consumer = consumer
        self.used = used
    }
}

/// A GPIO chip: its device path, kernel name, label and lines.
/// Pi 4: gpiochip0 [pinctrl-bcm2711]. Pi 5: the header is on the RP1, [pinctrl-rp1].
public struct GPIOChipInfo: Hashable, Sendable {
    public var path: String
    public var name: String
    public var label: String
    public var lines: [GPIOLineInfo]
    public init(path: String, name: String, label: String, lines: [GPIOLineInfo]) {
        self.path = path
        self.name = name
        self.label = label
        self.lines = lines
    }

    /// True when `text` names this chip by path, name ("gpiochip4"), label ("pinctrl-rp1")
    /// or number ("4").
    public func matches(_ text: String) -> Bool {
        if text == path || text == name || text == label { return true }
        if name.hasPrefix("gpiochip"), let n = UInt32(text), name == "gpiochip\(n)" { return true }
        return false
    }

    static func summary(_ chips: [GPIOChipInfo]) -> String {
        chips.isEmpty ? "none" : chips.map { "\($0.path) (\($0.name) [\($0.label)], \($0.lines.count) lines)" }
            .joined(separator: ", ")
    }
}

/// Input bias: buttons between a GPIO and GND want pull-up (the default).
public enum GPIOBias: String, Hashable, Sendable, CaseIterable {
    case pullUp = "pull-up"
    case pullDown = "pull-down"
    case disabled
    case asIs = "as-is"
}

/// How a configuration names a line: by name (searched on every chip unless a chip is given),
/// or by chip and offset. Names make one config work on a Pi 4 and a Pi 5.
public enum GPIOLineSpec: Hashable, Sendable, CustomStringConvertible {
    case named(String, chip: String?)
    case offset(UInt32, chip: String)

    /// Reads "GPIO17", "17" (an offset on `defaultChip`), "gpiochip0:17", "pinctrl-rp1:GPIO17",
    /// "/dev/gpiochip4:GPIO17". The chip part is everything before the last colon.
    public static func parse(_ raw: String, defaultChip: String? = nil) throws(GPIOError) -> GPIOLineSpec {
        let text = raw.gpioTrimmed
        guard !text.isEmpty else { throw .badLineSpec(text: raw, reason: "it is empty") }
        var chip = defaultChip.map(\.gpioTrimmed).flatMap { $0.isEmpty ? nil : $0 }
        var line = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            let c = text[..<colon].gpioTrimmed
            guard !c.isEmpty else { throw .badLineSpec(text: raw, reason: "the chip before ':' is empty") }
            chip = c
            line = text[text.index(after: colon)...]
        }
        let l = String(line).gpioTrimmed
        guard !l.isEmpty else { throw .badLineSpec(text: raw, reason: "the line after ':' is empty") }
        guard !l.contains(where: { $0 == " " || $0 == "\t" }) else {
            throw .badLineSpec(text: raw, reason: "a line name has no spaces")
        }
        if l.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let offset = UInt32(l) else { throw .badLineSpec(text: raw, reason: "offset \(l) is too large") }
            guard let chip else {
                throw .badLineSpec(text: raw, reason: "a bare offset needs a chip (set `chip` or write gpiochip0:\(l))")
            }
            return .offset(offset, chip: chip)
        }
        return .named(l, chip: chip)
    }

    public var description: String {
        switch self {
        case .named(let n, let chip): chip.map { "\($0):\(n)" } ?? n
        case .offset(let o, let chip): "\(chip):\(o)"
        }
    }

    /// Finds the chip and offset this spec names among `chips`, or says what exists instead.
    public func resolve(in chips: [GPIOChipInfo]) throws(GPIOError) -> (chip: GPIOChipInfo, offset: UInt32) {
        func findChip(_ c: String) throws(GPIOError) -> GPIOChipInfo {
            guard let found = chips.first(where: { $0.matches(c) }) else {
                throw .chipNotFound(chip: c, available: chips)
            }
            return found
        }
        switch self {
        case .offset(let offset, let c):
            let chip = try findChip(c)
            guard Int(offset) < chip.lines.count else { throw .offsetOutOfRange(offset: offset, chip: chip) }
            return (chip, offset)
        case .named(let name, let c):
            let candidates = try c.map { c throws(GPIOError) in [try findChip(c)] } ?? chips
            for chip in candidates {
                if let i = chip.lines.firstIndex(where: { $0.name == name }) { return (chip, UInt32(i)) }
            }
            throw .lineNotFound(line: name, searched: candidates)
        }
    }
}

extension StringProtocol {
    var gpioTrimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
