import IsletCore
import IsletSystem

extension MQTTLink {
    package enum State: Equatable {
        case connecting
        case connected
        case refused(String)
    }
    /// What `status` says: the state, since when, the last error, attempts since the last success.
    package struct Report {
        var state = State.connecting
        var since: Instant
        var lastError: String?
        var attempts = 0
        /// Messages not taken because a flood filled the inbox.
        var messagesDropped = 0
    }
}

/// A message waiting for its turn.
struct Inbound {
    var topic: String
    var payload: [UInt8]
    var retained: Bool
    var correlation: [UInt8]?
}

/// How long the connection has lasted, and how the last one ended.
struct Tenure {
    /// When the connection came up (a connection that lasted resets the backoff).
    var connectedAt: MonotonicInstant?
    /// Why the broker last ended a connection, when it said (e.g. another client took the id).
    var brokerGoodbye: String?
}

/// Messages in arrival order, taken from the front.
struct Waiting {
    private var messages: [Inbound] = []
    private var head = 0
    var count: Int { messages.count - head }
    mutating func append(_ m: Inbound) { messages.append(m) }
    mutating func next() -> Inbound? {
        guard head < messages.count else { return nil }
        defer { head += 1 }
        return messages[head]
    }
    /// Gives back the room of what was taken (not at every message: that would be quadratic).
    mutating func compact() {
        if head >= messages.count { clear() } else if head >= 512 { messages.removeFirst(head); head = 0 }
    }
    mutating func clear() { messages = []; head = 0 }
}
