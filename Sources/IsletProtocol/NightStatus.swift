import IsletCore

/// The panel's night mode, as `status` reports it and MQTT's brightness topic carries it
/// (docs/DISPLAY.md "Night").
public struct NightStatus: Codable, Sendable, Hashable {
    /// Whether the panel is in night mode now (the schedule's, or a `brightness` override's).
    public var night: Bool
    /// The 81h value the panel was last asked for.
    public var contrast: Int
    /// `schedule`, or `override` (a `brightness` request, until the next boundary).
    public var source: String
    /// `[display] night` as configured (`22:30-07:00`), absent without one.
    public var window: String?
    /// When the schedule next changes (ISO 8601, UTC), absent without a window.
    public var nextBoundary: String?
    /// What the schedule turns to at `next_boundary` (true: night), absent without a window.
    public var nextNight: Bool?
    /// `next_boundary` on the display's own clock, `HH:MM` (24-hour): what a person reads
    /// ("day from 07:00") whatever the zone of the browser or client that shows it.
    public var nextLocal: String?
    /// `[display] night_idle`: `dark` or `on`.
    public var idle: String
    /// Where local time comes from: the zone file or `TZ` string read, `UTC` without one.
    public var zone: String

    package init(night: Bool, contrast: Int, source: String, window: String?, nextBoundary: Instant?, idle: String, zone: String,
                 nextNight: Bool? = nil, nextLocal: String? = nil) {
        self.night = night
        self.contrast = contrast
        self.source = source
        self.window = window
        self.nextBoundary = nextBoundary.map(ISO8601.format)
        self.nextNight = nextBoundary == nil ? nil : nextNight
        self.nextLocal = nextBoundary == nil ? nil : nextLocal
        self.idle = idle
        self.zone = zone
    }

    enum CodingKeys: String, CodingKey {
        case night, contrast, source, window, nextBoundary = "next_boundary", nextNight = "next_night", nextLocal = "next_local", idle, zone
    }

    /// The `isletctl status` line.
    public var line: String {
        var s = "night \(night ? "on" : "off") (\(source)), contrast \(contrast)"
        if let window { s += "; night \(window) \(zone), idle \(idle)" }
        if let nextBoundary {
            s += ", next change \(nextBoundary)"
            if let nextNight, let nextLocal { s += " (\(nextNight ? "night" : "day") from \(nextLocal))" }
        }
        return s
    }

    /// `HH:MM` of an instant on a clock `offsetSeconds` ahead of UTC.
    package static func wallClock(_ t: Instant, offsetSeconds: Int32) -> String {
        let ms = t.milliseconds, day: Int64 = 86_400_000
        let inDay = ((ms + Int64(offsetSeconds) * 1000) % day + day) % day
        let m = Int(inDay / 60_000)
        return (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)"
    }

    /// What Home Assistant's two entities read (`<prefix>/brightness`, retained).
    public var brightnessPayload: [UInt8] {
        Array(JSONLines.encode(JSONValue.object(["night": .bool(night), "contrast": .number(Double(contrast))])).dropLast())
    }
}
