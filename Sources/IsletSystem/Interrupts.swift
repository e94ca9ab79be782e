#if canImport(Glibc)
import Glibc
#endif

/// The one place a system call interrupted by a signal (EINTR) is started again. close(2) is
/// the exception and never comes here: Linux releases the descriptor even when interrupted.
public enum SystemCall {
    /// Calls `call` again while it fails (a negative result) with errno EINTR; returns the first
    /// other result, with errno still as that call left it.
    @inlinable
    public static func retryingInterrupts<R: BinaryInteger>(_ call: () -> R) -> R {
        while true {
            let r = call()
            if r < 0 && errno == EINTR { continue }
            return r
        }
    }
}
