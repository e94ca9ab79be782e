#if canImport(Glibc)
import Glibc
#endif

/// A terminal switched to raw input (no line editing, no echo, one byte at a time); `restore()`
/// puts back the settings it found.
public final class TerminalRawMode {
    private var saved: termios
    private let fd: Int32

    /// Switches `fd` to raw input; nil when it is not a terminal or refuses.
    public init?(_ fd: Int32) {
        var saved = termios()
        guard isatty(fd) == 1, tcgetattr(fd, &saved) == 0 else { return nil }
        var t = saved
        t.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard Self.set(fd, &t) else { return nil }
        self.saved = saved
        self.fd = fd
    }

    public func restore() { _ = Self.set(fd, &saved) }

    /// tcsetattr(3), retried when a signal interrupts it.
    private static func set(_ fd: Int32, _ t: inout termios) -> Bool {
        SystemCall.retryingInterrupts { tcsetattr(fd, TCSANOW, &t) } == 0
    }
}

public enum Terminal {
    /// What one read of a key gave.
    public enum KeyRead: Sendable, Equatable {
        case byte(UInt8)
        /// Nothing there now (a non-blocking descriptor).
        case nothing
        /// End of file or an error: the terminal is gone.
        case closed
    }

    /// Reads one byte from `fd` (the demo's keys, standard input), retrying EINTR.
    public static func readKey(from fd: Int32) -> KeyRead {
        var byte: UInt8 = 0
        let n = SystemCall.retryingInterrupts { read(fd, &byte, 1) }
        if n == 1 { return .byte(byte) }
        if n == 0 { return .closed }
        return errno == EAGAIN || errno == EWOULDBLOCK ? .nothing : .closed
    }

    /// The size of the terminal at `fd` (TIOCGWINSZ), when it is one.
    public static func size(of fd: Int32) -> (columns: Int, rows: Int)? {
        var ws = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return nil }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }
}
