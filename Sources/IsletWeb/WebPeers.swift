import IsletSystem

/// Who may use a page without a password (docs/WEB.md "Security"): the users the control
/// socket lets act (mode 0660), that is root, the daemon's own user and the members of the
/// socket's group. The user behind a loopback connection is the owner of the client's socket,
/// which the kernel's socket table names (the `uid` column of /proc/net/tcp, read here with one
/// exact NETLINK_SOCK_DIAG lookup: /proc/net/tcp lists every socket, milliseconds per read with a
/// few thousand); each connection is looked up once.
package struct PeerPolicy {
    package let group: UInt32
    package let groupName: String
    package let ownUser: UInt32
    /// Verdicts per user for `verdictMs` (the user and group databases rarely change), at most
    /// `maximumUsers` of them.
    private var users: [UInt32: (admitted: Bool, at: MonotonicInstant)] = [:]
    /// Each open connection's verdict (dropped when it closes: bounded by the server's connections).
    package var connections: [OpaquePointer: Bool] = [:]
    package static let verdictMs: Int64 = 60_000
    package static let maximumUsers = 64

    package init(group: UInt32, groupName: String, ownUser: UInt32) {
        self.group = group
        self.groupName = groupName
        self.ownUser = ownUser
    }

    /// Whether `user` may use the page; `isMember` is the group database's answer (a seam for tests).
    package mutating func admits(_ user: UInt32, at mono: MonotonicInstant,
                                 isMember: (UInt32, UInt32) -> Bool = Identity.user(_:isInGroup:)) -> Bool {
        if user == 0 || user == ownUser { return true }
        if let v = users[user], mono.nanoseconds(since: v.at) / 1_000_000 < Self.verdictMs { return v.admitted }
        if users.count >= Self.maximumUsers { users = users.filter { mono.nanoseconds(since: $0.value.at) / 1_000_000 < Self.verdictMs } }
        if users.count >= Self.maximumUsers { users.removeAll() }
        let admitted = isMember(user, group)
        users[user] = (admitted, mono)
        return admitted
    }
}

extension WebPage {
    /// A page without a password serves a connection only when its user is one the control
    /// socket would admit; the verdict is kept for the connection's life. Answers 403 and
    /// returns false otherwise.
    func admitsPeer(_ r: HTTPRequest, at mono: MonotonicInstant) -> Bool {
        guard guarded.peers != nil else { return true }
        let key = r.connectionKey
        if let v = guarded.peers?.connections[key] { return v ? true : refusePeer(r) }
        let fd = HTTPConnections.fd(key)
        let owner: UInt32?
        do { owner = try TCPPeers.owner(ofPeerOf: fd) } catch {
            // Not knowing who it is, the page does not serve it (the unit must allow AF_NETLINK).
            env.log.limited(.warning, topic: "web-peer", nowMs: mono.milliseconds,
                            "web: cannot tell who owns a client's socket (\(error)); refused it: a page without a password serves only the socket's group")
            guarded.peers?.connections[key] = false
            return refusePeer(r)
        }
        let admitted = owner.map { guarded.peers?.admits($0, at: mono) ?? false } ?? false
        guarded.peers?.connections[key] = admitted
        if !admitted {
            env.log.limited(.notice, topic: "web-peer", nowMs: mono.milliseconds,
                            "web: refused a connection from uid \(owner.map(String.init) ?? "unknown") (not root, not this daemon's user, not in group \(guarded.peers?.groupName ?? "?")); a page without a password serves whom the control socket serves")
        }
        return admitted ? true : refusePeer(r)
    }

    private func refusePeer(_ r: HTTPRequest) -> Bool {
        refuse("not_in_group")
        let name = guarded.peers?.groupName ?? "the socket's group"
        fail(r, 403, "not_in_group",
             "this page has no password, so it serves only the users its control socket serves: root, the daemon's user and the group \(name) (join it, or give the page a password: [web] password_file)")
        return false
    }
}
