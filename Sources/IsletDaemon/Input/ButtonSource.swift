import IsletParts
import IsletInput
import IsletLinux
import IsletSystem

/// Where button edges come from: real GPIO lines or a mock. The daemon adds each of
/// `fileDescriptors` to its own poll set (each is readable while edges are pending behind it)
/// and calls `readEdges(from:)` with the one that is; nothing polls, no thread waits per
/// button, and no source keeps an epoll of its own.
public protocol ButtonSource: AnyObject, Sendable {
    /// The names of the buttons this source reports, in configuration order.
    var buttons: [String] { get }
    /// Every descriptor to watch: one per GPIO line, one for the mock's timer.
    var fileDescriptors: [Int32] { get }
    /// The pending edges behind `descriptor` (one of `fileDescriptors`), oldest first. Never
    /// blocks; [] when nothing is pending.
    func readEdges(from descriptor: Int32) throws(GPIOError) -> [ButtonEdge]
    /// The pending edges of every descriptor, merged oldest first. Never blocks.
    func readEdges() throws(GPIOError) -> [ButtonEdge]
}

extension ButtonSource {
    /// The first of `fileDescriptors`: the whole source only when it has one descriptor (the
    /// mock, a single GPIO button). Kept for callers that watch one descriptor; a loop must
    /// watch all of `fileDescriptors` for a source with several lines.
    public var fileDescriptor: Int32 { fileDescriptors.first ?? -1 }

    // The typed view of the two Int32 requirements above. The requirements stay Int32 while
    // sources outside this module (the daemon's mock) still implement them so.
    /// `fileDescriptors`, each still owned by the source.
    public var descriptors: [Descriptor] { fileDescriptors.map(Descriptor.init) }

    /// The pending edges behind `descriptor` (one of `descriptors`), oldest first.
    public func readEdges(from descriptor: Descriptor) throws(GPIOError) -> [ButtonEdge] {
        try readEdges(from: descriptor.raw)
    }
}

/// The GPIO lines are one source; IsletLinux holds the lines, the daemon the seam it reads through.
extension GPIOButtons: ButtonSource {}
