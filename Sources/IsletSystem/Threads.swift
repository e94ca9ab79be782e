#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// A thread of its own for work that blocks (the state writer's fsync), not joined: it ends
/// when `body` returns.
public enum DetachedThread {
    public static func start(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let r = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, box)
        guard r == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw SystemError("pthread_create", Errno(r))
        }
        pthread_detach(thread)
    }
}

/// The calling thread.
public enum CurrentThread {
    /// Sleeps `milliseconds` (nanosleep(2)); a signal does not cut the sleep short.
    public static func sleep(milliseconds ms: Int) {
        var ts = timespec(tv_sec: ms / 1000, tv_nsec: (ms % 1000) * 1_000_000)
        var left = timespec()
        // The retry sleeps only what is left of the interrupted sleep.
        _ = SystemCall.retryingInterrupts {
            let r = nanosleep(&ts, &left)
            if r != 0 { ts = left }
            return r
        }
    }
}
