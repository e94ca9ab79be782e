import IsletParts
import IsletSystem

/// The pill as Home Assistant's `image` entity (docs/MQTT.md): the panel's picture as PNG,
/// retained on `<prefix>/image`, when it changed, at most once a second. Decides what to send
/// and when; the bridge sends it.
struct PillImage {
    /// At most one picture a second: a panel that changes faster (a transition's frames) is
    /// sent as it stands a second after the last one.
    static let intervalMs: Int64 = 1000
    /// Each panel pixel 2×2 (a 128×64 panel is a 256×128 PNG of about a kilobyte), or 1×1 when
    /// the broker's Maximum Packet Size does not take that.
    static let scales = [2, 1]

    enum Step: Equatable {
        /// Nothing to send (unchanged, too soon, or no picture yet).
        case none
        case send([UInt8])
        /// No scale fits the broker's Maximum Packet Size: the smallest's bytes.
        case tooLarge(Int)
    }

    /// The panel's picture, from the last turn (nil before the first).
    var picture: (any PanelPicture)?
    /// The picture's version last looked at in this connection, and the bytes the broker holds
    /// from it (a new version with the same picture is not sent again).
    private var version = -1
    private var sent: [UInt8]?
    /// When the last one went, and when a change held back by the interval is to be sent.
    private var sentAt: MonotonicInstant?
    private(set) var due: MonotonicInstant?
    /// Publishes and their bytes (`make bench`, the tests' figures).
    private(set) var count = (publishes: 0, bytes: 0)

    /// A new connection: the broker's retained picture is sent again (it may be gone).
    mutating func reconnected() {
        version = -1
        sent = nil
        due = nil
    }

    /// What to do now with the picture; `fits` says whether a payload of that many bytes is
    /// within the broker's maximum packet.
    mutating func step(at mono: MonotonicInstant, fits: (Int) -> Bool) -> Step {
        due = nil
        guard let picture, picture.version != version else { return .none }
        if let last = sentAt, mono < last.adding(milliseconds: Self.intervalMs) {
            due = last.adding(milliseconds: Self.intervalMs)
            return .none
        }
        version = picture.version
        var smallest = 0
        for scale in Self.scales {
            guard let png = picture.png(scale: scale) else { return .none }
            smallest = png.count
            guard fits(png.count) else { continue }
            if png == sent { return .none }
            sent = png
            sentAt = mono
            count.publishes += 1
            count.bytes += png.count
            return .send(png)
        }
        return .tooLarge(smallest)
    }
}
