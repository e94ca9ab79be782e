import IsletSystem

/// The descriptor table: each registered descriptor with its handler and the interest the
/// daemon wants for it, and the deadline the loop sleeps until (a timerfd at an absolute
/// CLOCK_MONOTONIC instant, itself in the table). One epoll wait hands every ready descriptor
/// to its handler; nothing polls, and adding an input (a GPIO chip, later MQTT) is one
/// `register` call.
final class EventLoop {
    typealias Handler = (Epoll.Ready) -> Void
    private struct Entry {
        var handler: Handler
        var readable: Bool
        var writable: Bool
    }
    private let epoll: Epoll
    private var table: [Descriptor: Entry] = [:]
    private let deadline: any DeadlineTimer
    private var armed: MonotonicInstant?
    /// Turns taken: the daemon's wake-ups, for `status`.
    private(set) var turns = 0

    init(clock: any LoopClock) throws(SystemError) {
        epoll = try Epoll()
        deadline = try clock.makeDeadlineTimer()
        try register(Descriptor(deadline.fd)) { [unowned self] _ in
            deadline.clear()
            armed = nil
        }
    }

    /// Wakes the next turn at `instant` (nil: only a descriptor wakes it). Re-arms only when
    /// the instant changes.
    func wake(at instant: MonotonicInstant?) throws(SystemError) {
        guard instant != armed else { return }
        try deadline.arm(at: instant)
        armed = instant
    }

    func register(_ fd: Descriptor, readable: Bool = true, writable: Bool = false, _ handler: @escaping Handler) throws(SystemError) {
        guard fd.isValid else { return }
        try epoll.add(fd, readable: readable, writable: writable)
        table[fd] = Entry(handler: handler, readable: readable, writable: writable)
    }

    /// Changes what a descriptor is watched for; a no-op when it is already so.
    func watch(_ fd: Descriptor, readable: Bool, writable: Bool) {
        guard var e = table[fd], e.readable != readable || e.writable != writable else { return }
        do { try epoll.modify(fd, readable: readable, writable: writable) } catch { return }
        e.readable = readable
        e.writable = writable
        table[fd] = e
    }

    /// Removes a descriptor; call it before the descriptor is closed.
    func unregister(_ fd: Descriptor) {
        guard table.removeValue(forKey: fd) != nil else { return }
        epoll.remove(fd)
    }

    /// Waits until a descriptor is ready (`immediately`: only looks) and runs the handlers.
    /// Returns how many descriptors were ready.
    @discardableResult
    func turn(immediately: Bool) throws(SystemError) -> Int {
        let ready = try epoll.wait(timeoutMs: immediately ? 0 : -1)
        turns += 1
        for r in ready {
            // A handler earlier in this turn may have removed this one (a dropped client).
            table[r.descriptor]?.handler(r)
        }
        return ready.count
    }
}

// Bare Int32 descriptors: only for the callers in IsletDaemon not yet moved to `Descriptor`;
// remove these when none is left.
extension EventLoop {
    func register(_ fd: Int32, readable: Bool = true, writable: Bool = false, _ handler: @escaping Handler) throws(SystemError) {
        try register(Descriptor(fd), readable: readable, writable: writable, handler)
    }

    func watch(_ fd: Int32, readable: Bool, writable: Bool) { watch(Descriptor(fd), readable: readable, writable: writable) }

    func unregister(_ fd: Int32) { unregister(Descriptor(fd)) }
}
