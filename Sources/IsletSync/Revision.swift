/// The order of changes across the devices of a group: a hybrid logical clock's reading (wall
/// milliseconds, a counter for changes within one millisecond or while the wall clock stands
/// behind, and the device that made the change, so two devices never make the same revision).
/// Compared in that order: the newest revision of a timer is the one every device shows.
public struct Revision: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var wallMilliseconds: Int64
    public var counter: UInt32
    public var device: String

    /// The latest wall time a revision may carry: 9999-12-31T23:59:59.999Z. Every clock
    /// operation stays below it, so `+ 1` never overflows (a record from the network may say
    /// anything; docs/SYNC.md "Bounds").
    public static let maximumWallMilliseconds: Int64 = 253_402_300_799_999

    public init(wallMilliseconds: Int64, counter: UInt32, device: String) {
        self.wallMilliseconds = wallMilliseconds
        self.counter = counter
        self.device = device
    }

    /// Whether the wall time is one a clock can make (1970 to 9999).
    public var isInRange: Bool { (0...Self.maximumWallMilliseconds).contains(wallMilliseconds) }

    public static func < (a: Revision, b: Revision) -> Bool {
        if a.wallMilliseconds != b.wallMilliseconds { return a.wallMilliseconds < b.wallMilliseconds }
        if a.counter != b.counter { return a.counter < b.counter }
        // Byte order, not Unicode collation: the same answer on every device and every build.
        return a.device.utf8.lexicographicallyPrecedes(b.device.utf8)
    }

    public var description: String { "\(wallMilliseconds).\(counter)@\(device)" }

    enum CodingKeys: String, CodingKey { case wallMilliseconds = "wall_ms", counter, device }
}

/// A hybrid logical clock (Kulkarni et al., 2014): revisions that follow the wall clock when it
/// moves forward, never go back when it steps back, and are always later than every revision the
/// device has seen. Pure: the wall time is passed in. Persisted with the state, so a restart
/// continues from the last revision.
///
/// Every operation is total: no input makes it trap. Readings outside `Revision.isInRange` are
/// never taken (`observe` ignores them, `tick` clamps the wall time), so the arithmetic below
/// stays far from `Int64.max`; the ledger also refuses remote revisions ahead of its own
/// clock by more than its bound, so what is observed stays near the real time.
public struct HybridClock: Hashable, Sendable, Codable {
    public let device: String
    /// The last revision made or seen (nil: none yet).
    public private(set) var last: Revision?

    public init(device: String, last: Revision? = nil) {
        self.device = device
        self.last = last
    }

    /// The revision of a change made here at wall time `wallMilliseconds`.
    public mutating func tick(wallMilliseconds: Int64) -> Revision {
        let wall = min(max(wallMilliseconds, 0), Revision.maximumWallMilliseconds)
        let r: Revision
        if let l = last, l.isInRange, l.wallMilliseconds >= wall {
            // The wall clock stands at or behind what was seen: the counter orders the change.
            // A counter that would wrap (four billion changes in one millisecond) moves the wall
            // part; at the last representable millisecond the clock stands (never wraps).
            if l.counter < .max {
                r = Revision(wallMilliseconds: l.wallMilliseconds, counter: l.counter + 1, device: device)
            } else if l.wallMilliseconds < Revision.maximumWallMilliseconds {
                r = Revision(wallMilliseconds: l.wallMilliseconds + 1, counter: 0, device: device)
            } else {
                r = Revision(wallMilliseconds: l.wallMilliseconds, counter: l.counter, device: device)
            }
        } else {
            r = Revision(wallMilliseconds: wall, counter: 0, device: device)
        }
        last = r
        return r
    }

    /// A revision received from another device: later changes here are later than it. One
    /// outside the clock's range is ignored.
    public mutating func observe(_ remote: Revision) {
        guard remote.isInRange else { return }
        guard let l = last, l.isInRange else {
            last = Revision(wallMilliseconds: remote.wallMilliseconds, counter: remote.counter, device: device)
            return
        }
        if (remote.wallMilliseconds, remote.counter) > (l.wallMilliseconds, l.counter) {
            last = Revision(wallMilliseconds: remote.wallMilliseconds, counter: remote.counter, device: device)
        }
    }

    /// Brings a clock read from disk back within `limitMilliseconds` (a clock poisoned before
    /// the bounds existed): its last reading becomes `floor`, the newest revision kept.
    /// Returns whether it had to.
    public mutating func repair(limitMilliseconds: Int64, floor: Revision?) -> Bool {
        guard let l = last, !l.isInRange || l.wallMilliseconds > limitMilliseconds else { return false }
        last = floor.map { Revision(wallMilliseconds: $0.wallMilliseconds, counter: $0.counter, device: device) }
        return true
    }

    enum CodingKeys: String, CodingKey { case device, last }
}
