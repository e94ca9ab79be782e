/// Requests by `request_id` and the answers they got: the same id again gets the first answer
/// again, and nothing is done twice (a client that timed out resends safely; a QoS 1
/// redelivery is not a second press). Bounded in count and age; pure, the caller gives the time.
public struct RequestLedger: Sendable {
    private struct Entry: Sendable {
        var id: String
        var answer: [UInt8]
        var atMs: Int64
    }
    private var entries: [Entry] = []
    public let capacity: Int
    public let lifetimeMs: Int64

    public init(capacity: Int = 256, lifetimeMs: Int64 = 600_000) {
        self.capacity = capacity
        self.lifetimeMs = lifetimeMs
    }

    /// The answer `id` got, if it was seen within the lifetime.
    public mutating func answer(for id: String, nowMs: Int64) -> [UInt8]? {
        forgetExpired(nowMs)
        return entries.last { $0.id == id }?.answer
    }

    public mutating func record(_ id: String, answer: [UInt8], nowMs: Int64) {
        forgetExpired(nowMs)
        entries.removeAll { $0.id == id }
        entries.append(Entry(id: id, answer: answer, atMs: nowMs))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    public var count: Int { entries.count }

    private mutating func forgetExpired(_ nowMs: Int64) {
        entries.removeAll { nowMs - $0.atMs >= lifetimeMs }
    }
}
