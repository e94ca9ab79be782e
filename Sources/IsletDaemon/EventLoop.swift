import IsletSystem

/// The descriptor table: each registered descriptor with its handler and the interest the
/// daemon wants for it. One epoll wait hands every ready descriptor to its handler; nothing
/// polls, and adding an input (a GPIO chip, later MQTT) is one `register` call.
final class EventLoop {
    typealias Handler = (Epoll.Ready) -> Void
    private struct Entry {
        var handler: Handler
        var readable: Bool
        var writable: Bool
    }
    private let epoll: Epoll
    private var table: [Int32: Entry] = [:]

    init() throws(SystemError) { epoll = try Epoll() }

    func register(_ fd: Int32, readable: Bool = true, writable: Bool = false, _ handler: @escaping Handler) throws(SystemError) {
        guard fd >= 0 else { return }
        try epoll.add(fd, readable: readable, writable: writable)
        table[fd] = Entry(handler: handler, readable: readable, writable: writable)
    }

    /// Changes what a descriptor is watched for; a no-op when it is already so.
    func watch(_ fd: Int32, readable: Bool, writable: Bool) {
        guard var e = table[fd], e.readable != readable || e.writable != writable else { return }
        do { try epoll.modify(fd, readable: readable, writable: writable) } catch { return }
        e.readable = readable
        e.writable = writable
        table[fd] = e
    }

    /// Removes a descriptor; call it before the descriptor is closed.
    func unregister(_ fd: Int32) {
        guard table.removeValue(forKey: fd) != nil else { return }
        epoll.remove(fd)
    }

    /// Waits until a descriptor is ready (`immediately`: only looks) and runs the handlers.
    /// Returns how many descriptors were ready.
    @discardableResult
    func turn(immediately: Bool) throws(SystemError) -> Int {
        let ready = try epoll.wait(timeoutMs: immediately ? 0 : -1)
        for r in ready {
            // A handler earlier in this turn may have removed this one (a dropped client).
            table[r.fd]?.handler(r)
        }
        return ready.count
    }
}
