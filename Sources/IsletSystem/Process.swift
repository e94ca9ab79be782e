#if canImport(Glibc)
import Glibc
#endif

/// What the daemon asks of its own process: its id, the signals it takes as events, and one
/// byte from its terminal. Kept here so the daemon's parts name no C symbol.
public enum ProcessSelf {
    public static var id: Int { Int(getpid()) }

    /// A write to a socket whose peer left fails with EPIPE instead of killing the process.
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
}

/// The signals StopAndReloadSignals delivers, by meaning.
public enum ControlSignal: Sendable, Equatable {
    case stop(Int32)
    case reload

    /// Nil for a signal the daemon does not act on.
    public init?(number: Int32) {
        switch number {
        case SIGHUP: self = .reload
        case SIGTERM, SIGINT: self = .stop(number)
        default: return nil
        }
    }
}

/// One byte from a terminal descriptor (the demo's keys).
public enum TerminalByte: Sendable, Equatable {
    case byte(UInt8)
    /// Nothing to read now (EAGAIN, EINTR).
    case none
    /// The terminal is gone (EOF or an error other than EAGAIN/EINTR).
    case closed

    public static func read(_ fd: Int32) -> TerminalByte {
        var byte: UInt8 = 0
        let n = Glibc.read(fd, &byte, 1)
        if n == 1 { return .byte(byte) }
        if n < 0, errno == EINTR || errno == EAGAIN { return .none }
        return .closed
    }
}
