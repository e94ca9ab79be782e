import Synchronization
import IsletSystem

/// Connects sessions off the loop's thread. libmosquitto resolves with a blocking
/// `getaddrinfo` and connects with a blocking `connect`; a dead DNS server or a broker address
/// that drops packets would hold the loop for minutes (and the watchdog would kill the daemon).
/// So each attempt runs on a short-lived thread of its own, and its end is signalled on a
/// descriptor the loop watches. An attempt the owner gave up on (`abandon`) finishes on its
/// thread and frees its session there; the loop never waits for it.
public final class MQTTConnector: Sendable {
    /// Readable when an attempt has finished.
    public let done: EventCounter

    private struct Slot {
        var attempt: UInt64 = 0
        var finished: (MQTTSession, MQTTError?)?
        /// Attempts given up on whose threads have not returned yet.
        var stranded = 0
        /// An attempt's thread is running and its outcome is still wanted.
        var running = false
    }
    private let slot = Mutex(Slot())

    /// At most this many abandoned attempts may still be blocked before a new one waits.
    public static let maximumStranded = 4

    public init() throws(SystemError) { done = try EventCounter() }

    /// Whether another attempt may start (too many stranded threads: wait for one to return).
    public var canBegin: Bool { slot.withLock { $0.stranded < Self.maximumStranded } }

    /// Starts connecting `session` on a thread of its own.
    public func begin(_ session: MQTTSession) throws(SystemError) {
        let attempt = slot.withLock { s -> UInt64 in
            s.attempt += 1
            s.finished = nil
            s.running = true
            return s.attempt
        }
        try DetachedThread.start { [self] in
            let outcome = session.connect()
            let kept = self.slot.withLock { s -> Bool in
                guard s.attempt == attempt else {
                    s.stranded -= 1
                    return false
                }
                s.finished = (session, outcome)
                s.running = false
                return true
            }
            if kept { self.done.signal() }
            // Not kept: the session (and its socket) is released here, on this thread.
        }
    }

    /// The finished attempt, once `done` was readable; nil when it was abandoned meanwhile.
    public func take() -> (session: MQTTSession, error: MQTTError?)? {
        _ = done.drain()
        return slot.withLock { s in
            defer { s.finished = nil }
            return s.finished.map { ($0.0, $0.1) }
        }
    }

    /// Gives up on the attempt under way: its thread frees the session when it returns.
    public func abandon() {
        slot.withLock { s in
            if s.running { s.stranded += 1 }
            s.running = false
            s.finished = nil
            s.attempt += 1
        }
    }
}
