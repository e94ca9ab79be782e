#if canImport(Glibc)
import Glibc
#endif

/// An errno value as a typed error whose description is the C library's text. The one errno
/// type of the project, in a module of its own (the C library only) so the C-free display
/// driver and the system-call layer share it.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32
    public init(_ code: Int32) { self.code = code }
    public static var current: Errno { Errno(errno) }
    public var description: String {
        guard let p = strerror(code) else { return "errno \(code)" }
        return String(cString: p)
    }
}
