import FoundationEssentials
import IsletCore
import IsletFrame

/// The daemon's counters and panel, in `status` answers.
public struct DaemonStatus: Codable, Sendable, Hashable {
    public var pid: Int
    public var version: String
    public var uptimeSeconds: Double
    public var wakeups: Int
    public var frames: Int
    public var busBytes: Int
    public var busErrors: Int
    public var panelPresent: Bool
    public var panelOn: Bool
    public var bus: String
    /// How writes reach the panel: `i2c` (plain I²C, one I2C_RDWR message per write) or `smbus`
    /// (SMBus I²C-block writes); absent until the bus has been opened.
    public var transport: String?
    /// Why the panel is not answering (the bus's error and what to do), while it is not.
    public var panelError: String?
    /// The panel's size, `WxH` (what clients draw their own pictures at).
    public var size: String
    public var presentation: String
    public var storeError: String?
    /// The emulated panel's visible image (mock bus only): page-packed bytes in hex.
    public var panel: PanelImage?
    /// Each part's block under its own key, as the part wrote it (`clients`, `night`, `mqtt`,
    /// …; README.md "The control socket" lists them): the core names no part. `StatusBlocks.swift` reads the
    /// ones clients use.
    public private(set) var parts: [String: JSONValue] = [:]

    package init(pid: Int, version: String, uptimeSeconds: Double, wakeups: Int, frames: Int, busBytes: Int, busErrors: Int, panelPresent: Bool, panelOn: Bool, bus: String, size: String, presentation: String, storeError: String? = nil, panel: PanelImage? = nil) {
        self.pid = pid
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.wakeups = wakeups
        self.frames = frames
        self.busBytes = busBytes
        self.busErrors = busErrors
        self.panelPresent = panelPresent
        self.panelOn = panelOn
        self.bus = bus
        self.size = size
        self.presentation = presentation
        self.storeError = storeError
        self.panel = panel
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pid, version, uptimeSeconds = "uptime_seconds", wakeups, frames, busBytes = "bus_bytes"
        case busErrors = "bus_errors", panelPresent = "panel_present", panelOn = "panel_on", bus, transport, panelError = "panel_error"
        case size, presentation, storeError = "store_error", panel
    }

    /// A part writes its block (a value that encodes as JSON) under its own key; a key of the
    /// core's, or one another part wrote, is refused: each key has one owner.
    @discardableResult
    package mutating func set(_ key: String, _ value: some Encodable) -> Bool {
        guard CodingKeys(rawValue: key) == nil, parts[key] == nil,
              let bytes = try? JSONEncoder().encode(value),
              let json = try? JSONDecoder().decode(JSONValue.self, from: bytes) else { return false }
        parts[key] = json
        return true
    }

    /// A part's block, decoded (nil when absent or not of that shape).
    public func block<T: Decodable>(_ key: String, as type: T.Type = T.self) -> T? {
        guard let json = parts[key], let bytes = try? JSONEncoder().encode(json) else { return nil }
        return try? JSONDecoder().decode(T.self, from: bytes)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pid = try c.decode(Int.self, forKey: .pid)
        version = try c.decode(String.self, forKey: .version)
        uptimeSeconds = try c.decode(Double.self, forKey: .uptimeSeconds)
        wakeups = try c.decode(Int.self, forKey: .wakeups)
        frames = try c.decode(Int.self, forKey: .frames)
        busBytes = try c.decode(Int.self, forKey: .busBytes)
        busErrors = try c.decode(Int.self, forKey: .busErrors)
        panelPresent = try c.decode(Bool.self, forKey: .panelPresent)
        panelOn = try c.decode(Bool.self, forKey: .panelOn)
        bus = try c.decode(String.self, forKey: .bus)
        transport = try c.decodeIfPresent(String.self, forKey: .transport)
        panelError = try c.decodeIfPresent(String.self, forKey: .panelError)
        size = try c.decode(String.self, forKey: .size)
        presentation = try c.decode(String.self, forKey: .presentation)
        storeError = try c.decodeIfPresent(String.self, forKey: .storeError)
        panel = try c.decodeIfPresent(PanelImage.self, forKey: .panel)
        let all = try decoder.container(keyedBy: AnyCodingKey.self)
        for key in all.allKeys where CodingKeys(rawValue: key.stringValue) == nil {
            parts[key.stringValue] = try all.decode(JSONValue.self, forKey: key)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pid, forKey: .pid)
        try c.encode(version, forKey: .version)
        try c.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try c.encode(wakeups, forKey: .wakeups)
        try c.encode(frames, forKey: .frames)
        try c.encode(busBytes, forKey: .busBytes)
        try c.encode(busErrors, forKey: .busErrors)
        try c.encode(panelPresent, forKey: .panelPresent)
        try c.encode(panelOn, forKey: .panelOn)
        try c.encode(bus, forKey: .bus)
        try c.encodeIfPresent(transport, forKey: .transport)
        try c.encodeIfPresent(panelError, forKey: .panelError)
        try c.encode(size, forKey: .size)
        try c.encode(presentation, forKey: .presentation)
        try c.encodeIfPresent(storeError, forKey: .storeError)
        try c.encodeIfPresent(panel, forKey: .panel)
        var all = encoder.container(keyedBy: AnyCodingKey.self)
        for (key, value) in parts { try all.encode(value, forKey: AnyCodingKey(key)) }
    }
}
