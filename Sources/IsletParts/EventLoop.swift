import IsletSystem
import IsletClock

/// The descriptor table: each registered descriptor with its handler and the interest the
/// daemon wants for it, and the deadline the loop sleeps until (a timerfd at an absolute
/// CLOCK_MONOTONIC instant, itself in the table). One epoll wait hands every ready descriptor
/// to its handler; nothing polls, and adding an input (a GPIO chip, a broker's socket) is one
/// `register` call.
package final class EventLoop {
    package typealias Handler = (Epoll.Ready) -> Void
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
    package private(set) var turns = 0

    package init(clock: any LoopClock) throws(SystemError) {
        epoll = try Epoll()
        deadline = try clock.makeDeadlineTimer()
        try register(Descriptor(deadline.fd)) { [unowned self] _ in
            deadline.clear()
            armed = nil
        }
    }

    /// Wakes the next turn at `instant` (nil: only a descriptor wakes it). Re-arms only when
    /// the instant changes.
    package func wake(at instant: MonotonicInstant?) throws(SystemError) {
        guard instant != armed else { return }
        try deadline.arm(at: instant)
        armed = instant
    }

    package func register(_ fd: Descriptor, readable: Bool = true, writable: Bool = false, _ handler: @escaping Handler) throws(SystemError) {
        guard fd.isValid else { return }
        try epoll.add(fd, readable: readable, writable: writable)
        table[fd] = Entry(handler: handler, readable: readable, writable: writable)
    }

    /// Changes what a descriptor is watched for; a no-op when it is already so.
    package func watch(_ fd: Descriptor, readable: Bool, writable: Bool) {
        guard var e = table[fd], e.readable != readable || e.writable != writable else { return }
        do { try epoll.modify(fd, readable: readable, writable: writable) } catch { return }
        e.readable = readable
        e.writable = writable
        table[fd] = e
    }

    /// Removes a descriptor; call it before the descriptor is closed.
    package func unregister(_ fd: Descriptor) {
        guard table.removeValue(forKey: fd) != nil else { return }
        epoll.remove(fd)
    }

    /// Waits until a descriptor is ready (`immediately`: only looks) and runs the handlers.
    /// Returns how many descriptors were ready.
    @discardableResult
    package func turn(immediately: Bool) throws(SystemError) -> Int {
        let ready = try epoll.wait(timeoutMs: immediately ? 0 : -1)
        turns += 1
        for r in ready {
            // A handler earlier in this turn may have removed this one (a dropped client).
            table[r.descriptor]?.handler(r)
        }
        return ready.count
    }
}
