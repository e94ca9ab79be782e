/// One debounced-or-not edge of a named button, as read from a line or scripted by a mock.
/// `pressed` is the logical level after the edge (true: the button went down). The timestamp is
/// the kernel's CLOCK_MONOTONIC in nanoseconds, the clock the daemon schedules deadlines on.
public struct ButtonEdge: Hashable, Sendable, CustomStringConvertible {
    public var button: String
    public var pressed: Bool
    public var timestampNanoseconds: UInt64

    public init(button: String, pressed: Bool, timestampNanoseconds: UInt64) {
        self.button = button
        self.pressed = pressed
        self.timestampNanoseconds = timestampNanoseconds
    }

    public var description: String {
        "\(button) \(pressed ? "down" : "up") @\(timestampNanoseconds)ns"
    }
}
