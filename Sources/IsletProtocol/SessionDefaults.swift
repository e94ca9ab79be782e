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

    public init() {}

    public var attributes: ActivityAttributes {
        ActivityAttributes(kind: .countdown(cycle: .milliseconds(Int64(minutes * 60_000)), cycles: cycles == 0 ? nil : cycles),
                           title: title, cycleEndInterval: .milliseconds(Int64(cycleEndSeconds * 1000)),
                           language: language, relevance: relevance)
    }
}
