/// A panel's size in pixels. The named sizes are the panels Islet lays out by hand; any other
/// size from 8×8 to 256×256 renders with the same rules.
public struct PanelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public static let w128h32 = PanelSize(width: 128, height: 32)
    public static let w128h64 = PanelSize(width: 128, height: 64)
    public static let w96h16 = PanelSize(width: 96, height: 16)
    public static let w72h40 = PanelSize(width: 72, height: 40)
    public static let w64h48 = PanelSize(width: 64, height: 48)
    public static let w64h32 = PanelSize(width: 64, height: 32)
    public static let w64h128 = PanelSize(width: 64, height: 128)
    public static let w128h128 = PanelSize(width: 128, height: 128)

    /// Every size the layouts are designed and tested for.
    public static let all: [PanelSize] = [.w128h32, .w128h64, .w96h16, .w72h40, .w64h48, .w64h32, .w64h128, .w128h128]

    public static let validRange = 8...256

    /// What `init(parsing:)` takes, for the callers' error messages.
    public static let syntax = "WxH with each side 8 to 256, e.g. 128x32"

    /// Parses `WxH` (also `W×H` or `WXH`), e.g. `128x32`; nil when malformed or out of 8…256.
    public init?(parsing text: String) {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "x" || $0 == "X" || $0 == "×" })
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } && $0.count <= 4 }),
              let w = Int(parts[0]), let h = Int(parts[1]),
              Self.validRange.contains(w), Self.validRange.contains(h) else { return nil }
        self.init(width: w, height: h)
    }

    public var description: String { "\(width)x\(height)" }
}
