import IsletParts
import IsletInput
import IsletLinux
import IsletSystem

/// Where button edges come from: real GPIO lines or a mock. The daemon adds each of
/// `descriptors` to its own poll set (each is readable while edges are pending behind it)
/// and calls `readEdges(from:)` with the one that is; nothing polls, no thread waits per
/// button, and no source keeps an epoll of its own.
public protocol ButtonSource: AnyObject, Sendable {
    /// The names of the buttons this source reports, in configuration order.
    var buttons: [String] { get }
    /// Every descriptor to watch (the source owns them): one per GPIO line, one for the mock's timer.
    var descriptors: [Descriptor] { get }
    /// The pending edges behind `descriptor` (one of `descriptors`), oldest first. Never
    /// blocks; [] when nothing is pending.
    func readEdges(from descriptor: Descriptor) throws(GPIOError) -> [ButtonEdge]
    /// The pending edges of every descriptor, merged oldest first. Never blocks.
    func readEdges() throws(GPIOError) -> [ButtonEdge]
}

/// The GPIO lines are one source; IsletLinux holds the lines, the daemon the seam it reads through.
extension GPIOButtons: ButtonSource {}
