/// A file descriptor number that this value does not own: passing it along never closes it
/// (the owner is a `FileDescriptor`, a C library's handle, or the process for 0, 1 and 2).
/// It gives a table key or a parameter a type where a bare Int32 could be anything.
public struct Descriptor: Hashable, Sendable, CustomStringConvertible {
    public let raw: Int32
    public init(_ raw: Int32) { self.raw = raw }

    public static let standardInput = Descriptor(0)
    public static let standardOutput = Descriptor(1)
    public static let standardError = Descriptor(2)

    /// Whether it names a descriptor at all (C helpers use -1 for none).
    public var isValid: Bool { raw >= 0 }
    public var description: String { "fd \(raw)" }
}

extension FileDescriptor {
    /// The descriptor's number, borrowed: valid as long as this object is open.
    public var descriptor: Descriptor { Descriptor(raw) }
}
