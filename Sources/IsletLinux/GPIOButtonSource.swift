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

/// Where button edges come from: real GPIO lines or a mock. The daemon adds `fileDescriptor` to
/// its poll set (it is readable while edges are pending) and calls `readEdges()` when it is;
/// nothing polls and no thread waits per button.
public protocol ButtonSource: AnyObject, Sendable {
    /// The names of the buttons this source reports, in configuration order.
    var buttons: [String] { get }
    /// Readable (POLLIN) while `readEdges()` has something to return.
    var fileDescriptor: Int32 { get }
    /// The pending edges, oldest first. Never blocks; returns [] when nothing is pending.
    func readEdges() throws(GPIOError) -> [ButtonEdge]
}
