import IsletParts
import IsletSystem

extension MQTTLink {
    /// When to try again, and when the attempt under way on the connector's thread must finish.
    struct Attempt {
        var backoff = Backoff(initialMs: 1000, maximumMs: 60_000)
        var deadline: MonotonicInstant?
    }

    /// Publishes sent and their bytes (topic and payload).
    package struct Traffic {
        package var publishes = 0
        package var bytes = 0
    }
}
