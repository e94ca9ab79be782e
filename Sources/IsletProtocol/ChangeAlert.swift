/// A moment a person should notice, carried by the `change` event of the turn it happened in
/// (`alerts`): a countdown's natural completion, or an `until` activity's `alert`. The daemon's
/// chime sounds for the same two; a page or a watcher that plays its own sound reads them here
/// instead of guessing from a phase (an `end` also makes an activity complete).
public struct ChangeAlert: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// A countdown reached the end of its last cycle by itself.
        case completed
        /// An `update` with `alert: true` reached an `until` activity.
        case alerted
    }

    public var timer: String
    public var kind: Kind

    public init(timer: String, kind: Kind) {
        self.timer = timer
        self.kind = kind
    }

    /// At most this many in one event: one turn acts on at most 16 activities, each with both.
    public static let maximumPerEvent = 32
}
