/// Standard output and standard error, written with write(2): the C library's `stdout` and
/// `stderr` globals are not concurrency-safe in Swift 6. The one writer of both.
public enum StandardStream: Sendable {
    case output, error

    var descriptor: Descriptor { self == .output ? .standardOutput : .standardError }

    /// Writes every byte (a partial write continues); the first failure is thrown.
    public func write(_ bytes: [UInt8]) throws(SystemError) {
        try Posix.writeAll(descriptor.raw, bytes)
    }

    /// Writes `text` as UTF-8; a failure is dropped, as there is nowhere left to report it.
    public func write(_ text: String) {
        try? write(Array(text.utf8))
    }

    /// Writes `text` and a newline.
    public func writeLine(_ text: String) { write(text + "\n") }
}
