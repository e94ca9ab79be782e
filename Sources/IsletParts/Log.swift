import IsletSystem
import IsletSettings

/// Logs to stderr, one line per entry, prefixed for journald. Not thread-safe by design: only
/// the event-loop thread logs.
public final class Logger {
    public var threshold: LogLevel
    /// Last time (monotonic ms) each rate-limited topic was logged.
    private var lastByTopic: [String: Int64] = [:]
    private var suppressed: [String: Int] = [:]
    /// What each topic last logged, for `distinct` entries.
    private var lastMessage: [String: String] = [:]

    public init(threshold: LogLevel = .info) { self.threshold = threshold }

    public func log(_ level: LogLevel, _ message: String) {
        guard level <= threshold else { return }
        let line = "<\(level.rawValue)>isletd: \(message)\n"
        // A log line that cannot be written has nowhere else to go.
        StandardStream.error.write(line)
    }

    /// Logs at most once per `interval` ms for one topic; the next entry says how many were skipped.
    /// With `distinct`, a message that differs from the topic's last one is logged even inside
    /// the interval (a new error must not hide behind the rate limit of an old one).
    public func limited(_ level: LogLevel, topic: String, intervalMs: Int64 = 60_000, nowMs: Int64,
                        distinct: Bool = false, _ message: String) {
        if let last = lastByTopic[topic], nowMs - last < intervalMs, !distinct || lastMessage[topic] == message {
            suppressed[topic, default: 0] += 1
            return
        }
        let skipped = suppressed.removeValue(forKey: topic) ?? 0
        lastByTopic[topic] = nowMs
        lastMessage[topic] = message
        log(level, skipped > 0 ? "\(message) (\(skipped) similar messages suppressed)" : message)
    }

    /// Forgets a topic, so the next problem of that kind is logged at once (e.g. after recovery).
    public func reset(topic: String) {
        lastByTopic[topic] = nil
        suppressed[topic] = nil
        lastMessage[topic] = nil
    }

    public func error(_ m: String) { log(.error, m) }
    public func warning(_ m: String) { log(.warning, m) }
    public func notice(_ m: String) { log(.notice, m) }
    public func info(_ m: String) { log(.info, m) }
    public func debug(_ m: String) { log(.debug, m) }
}
