import IsletSystem
import IsletClock
import IsletSettings

/// Retry with exponential backoff: when to try next, and how long the wait after that is.
package struct Backoff {
    package let initialMs: Int64
    package let maximumMs: Int64
    package private(set) var delayMs: Int64
    /// When to try again; nil while nothing is failing.
    package private(set) var retryAt: MonotonicInstant?

    package init(initialMs: Int64, maximumMs: Int64) {
        self.initialMs = initialMs
        self.maximumMs = maximumMs
        delayMs = initialMs
    }

    package func isDue(_ mono: MonotonicInstant) -> Bool { retryAt.map { mono >= $0 } ?? false }

    /// A try failed at `mono`: the next one waits the current delay, which then doubles.
    package mutating func failed(at mono: MonotonicInstant) {
        retryAt = mono.adding(milliseconds: delayMs)
        delayMs = min(delayMs * 2, maximumMs)
    }

    /// Tries from `mono` on, without growing the delay (a first failure found at start).
    package mutating func retry(at mono: MonotonicInstant) { retryAt = mono }

    /// Nothing to retry until the try under way reports (its failure calls `failed`).
    package mutating func waitForCompletion() { retryAt = nil }

    package mutating func succeeded() {
        retryAt = nil
        delayMs = initialMs
    }
}

/// A GPIO line (the buttons, the chime) that did not open: tried again with backoff, each
/// failure logged at most once a minute, the recovery once.
package struct LineRetry {
    /// What the line is for the log: "buttons", "chime".
    package let name: String
    private var backoff = Backoff(initialMs: 1000, maximumMs: 60_000)

    package init(_ name: String) { self.name = name }

    package var retryAt: MonotonicInstant? { backoff.retryAt }

    /// The first try, at start, failed: running without the line, retrying in a second.
    package mutating func failedAtStart(_ error: any Error, _ env: PartEnvironment) {
        env.log.limited(.error, topic: "gpio-\(name)", nowMs: env.startedAt.milliseconds,
                        "\(name) unavailable, running without \(name == "buttons" ? "them" : "it") for now (retrying): \(error)")
        backoff.failed(at: env.startedAt)
    }

    /// When due, tries `open` again; its value once it works.
    package mutating func attempt<T, E: Error>(mono: MonotonicInstant, _ env: PartEnvironment, _ open: () throws(E) -> T) -> T? {
        guard backoff.isDue(mono) else { return nil }
        env.log.debug("trying the GPIO lines again (\(name))")
        do {
            let value = try open()
            backoff.succeeded()
            env.log.notice("\(name) ready")
            return value
        } catch {
            backoff.failed(at: mono)
            env.log.limited(.warning, topic: "gpio-\(name)", nowMs: mono.milliseconds, "\(name) still unavailable (retrying): \(error)")
            return nil
        }
    }
}

/// The earlier of two optional instants.
package func earliest(_ a: MonotonicInstant?, _ b: MonotonicInstant?) -> MonotonicInstant? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}

/// A token bucket on the monotonic clock: `burst` at once, then `perSecond` (docs/MQTT.md
/// "Bounds"). What it refuses is not queued: a flood costs a counter, not memory.
package struct RateLimit {
    package let perSecond: Int64
    package let burst: Int64
    /// Tokens in thousandths, so a whole number of milliseconds refills exactly.
    private var milliTokens: Int64
    private var last: MonotonicInstant?

    package init(perSecond: Int64, burst: Int64) {
        self.perSecond = perSecond
        self.burst = burst
        milliTokens = burst * 1000
    }

    /// Takes one token at `mono`; false when none is left.
    package mutating func take(at mono: MonotonicInstant) -> Bool {
        if let last {
            if mono > last {
                let elapsed = min(mono.nanoseconds(since: last) / 1_000_000, 3_600_000)
                milliTokens = min(burst * 1000, milliTokens + elapsed * perSecond)
                self.last = mono
            }
        } else {
            last = mono
        }
        guard milliTokens >= 1000 else { return false }
        milliTokens -= 1000
        return true
    }
}
