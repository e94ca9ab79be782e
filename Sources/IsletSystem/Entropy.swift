#if canImport(Glibc)
import Glibc
#endif
import CLinux
import IsletErrno

/// The kernel's random bytes (getrandom(2)): session tokens and anything an attacker must not guess.
public enum Entropy {
    /// `count` bytes from the kernel's pool; waits only before the pool is first seeded at boot.
    public static func bytes(_ count: Int) throws(SystemError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return islet_getrandom(base + filled, count - filled)
            }
            if n < 0 { throw SystemError("getrandom", Errno(Int32(-n))) }
            filled += n
        }
        return out
    }
}

/// A connected socket's end, by its number: what a server that does not own the descriptor may
/// still do to a client that must go (shutdown(2); the owner closes it when it sees the end).
public enum SocketEnd {
    /// Ends both directions; the peer sees EOF, the owner's next read or write fails.
    public static func cut(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Whether the peer has closed its end: a peek (nothing is taken) finds the end of the
    /// stream. False while bytes wait or nothing has come yet.
    public static func peerClosed(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return Glibc.recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }
}

/// This machine as the network knows it.
public enum ThisMachine {
    /// The kernel's host name (gethostname(2)), lowercased; "" when it has none.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
    }
}
