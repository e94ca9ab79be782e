import IsletCore

/// The session `toggle` starts from idle.
public struct SessionDefaults: Hashable, Sendable {
    public var minutes: Double = 20
    public var cycles: Int = 1
    public var language: String = "en"
    public var cycleEndSeconds: Double = 3
    public var title: String?
    /// How a session started by hand ranks against pushed activities (`[session] relevance`).
    public var relevance: Double = ActivityAttributes.handStartedRelevance
    /// What toggle starts from idle: a countdown of `minutes`, or a stopwatch (`[session] kind`).
    public var stopwatch = false
    /// A started session turns stale after this long without an update (`[session]
    /// stale_after_seconds`); nil: never.
    public var staleAfterSeconds: Double?

    public init() {}

    public var attributes: ActivityAttributes {
        ActivityAttributes(kind: stopwatch ? .stopwatch : .countdown(cycle: .milliseconds(Int64(minutes * 60_000)), cycles: cycles == 0 ? nil : cycles),
                           title: title, cycleEndInterval: .milliseconds(Int64(cycleEndSeconds * 1000)),
                           staleAfter: staleAfterSeconds.map { .milliseconds(Int64($0 * 1000)) },
                           language: language, relevance: relevance)
    }
}
