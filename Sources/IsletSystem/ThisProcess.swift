#if canImport(Glibc)
import Glibc
#endif

/// Ending this process, for the executables' mains (they import no C library of their own).
public enum ThisProcess {
    /// exit(3): runs the atexit handlers and flushes stdio (what `print` wrote), then ends
    /// with `status`.
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}
