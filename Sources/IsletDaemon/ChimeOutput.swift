import IsletParts
import IsletInput
import IsletLinux
import Synchronization
import IsletConfig

extension ChimePlayer {
    /// Acts on a cue with the configured patterns; returns the level to set now, if it changed.
    public mutating func handle(_ cue: ChimeCue, config: ChimeConfig, at now: UInt64) -> Bool? {
        guard let pattern = config.pattern(for: cue) else { return stop() }
        return start(pattern, at: now)
    }
}

/// Where the chime's level goes: a GPIO line (buzzer or LED) or a mock.
public protocol ChimeOutput: AnyObject, Sendable {
    func set(active: Bool) throws(GPIOError)
}

extension GPIOOutput: ChimeOutput {}

/// Records levels instead of driving a line, for tests and the demo.
public final class MockChimeOutput: ChimeOutput {
    private let recorded = Mutex<[Bool]>([])
    public init() {}
    public func set(active: Bool) throws(GPIOError) { recorded.withLock { $0.append(active) } }
    /// Every level set so far, in order.
    public var levels: [Bool] { recorded.withLock { $0 } }
}
