import IsletInput

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
