import IsletSettings
import IsletCore

/// At night, a panel with nothing running: switched off (`dark`), or as by day (`on`).
package enum NightIdle: String, Sendable, CaseIterable { case dark, on }

/// Night mode's keys, which live in `[display]` beside the panel's (docs/DISPLAY.md "Night"):
/// owned by the night part, read and checked here, reloaded in place.
package struct NightSettings: PartSettings, Equatable {
    package static let section = "display"
    package static let keys = ["night", "night_contrast", "night_idle"]
    package static let presence = SectionPresence.always

    /// The night, in local time (`22:30-07:00`); nil: no night.
    package var window: NightWindow?
    /// 81h at night: the lowest by default, for a panel by the bed.
    package var contrast: UInt8 = 0
    package var idle: NightIdle = .dark

    package init() {}

    package mutating func set(_ v: ConfigValue) throws(ConfigError) {
        switch v.key {
        case "night":
            if v.text.isEmpty || v.text == "off" { window = nil } else {
                guard let w = NightWindow(parsing: v.text) else {
                    throw v.bad("HH:MM-HH:MM in local time on a 24-hour clock, start and end different (22:30-07:00 crosses midnight), or off")
                }
                window = w
            }
        case "night_contrast": contrast = UInt8(try v.int(0...255))
        case "night_idle": idle = try v.choice(NightIdle.self)
        default: throw ConfigValue.unknownKey(v.key, section: v.section, known: Self.keys, origin: v.origin)
        }
    }
}
