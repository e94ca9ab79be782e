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
