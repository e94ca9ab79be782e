#if canImport(Glibc)
import Glibc
#endif
import CSockDiag
import IsletErrno

/// Who is at the other end of a loopback TCP connection.
public enum TCPPeers {
    /// The user that owns the peer's socket, from the kernel's socket table (one exact lookup
    /// through NETLINK_SOCK_DIAG); nil when the kernel has no such socket here (the peer is not
    /// on this machine).
    public static func owner(ofPeerOf fd: Int32, fromProcOnly: Bool = false) throws(SystemError) -> UInt32? {
        var uid: UInt32 = 0
        // `fromProcOnly`: the fallback used where the kernel refuses NETLINK_SOCK_DIAG (qemu-user), for its test.
        let rc = fromProcOnly ? islet_tcp_peer_uid_from_proc(fd, &uid) : islet_tcp_peer_uid(fd, &uid)
        if rc == 0 { return uid }
        if rc == -ENOENT { return nil }
        throw SystemError("sock_diag lookup of a client's socket", Errno(-rc))
    }
}

extension Identity {
    /// Whether `user` is in group `group` per the user and group databases: its primary group,
    /// or a member listed in the group.
    public static func user(_ user: UInt32, isInGroup group: UInt32) -> Bool {
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        var pw = passwd()
        var pwResult: UnsafeMutablePointer<passwd>?
        guard getpwuid_r(uid_t(user), &pw, &buffer, buffer.count, &pwResult) == 0, pwResult != nil, let name = pw.pw_name else { return false }
        if UInt32(pw.pw_gid) == group { return true }
        let userName = String(cString: name)
        var groupBuffer = [CChar](repeating: 0, count: 64 * 1024)
        var gr = GroupEntry()
        var grResult: UnsafeMutablePointer<GroupEntry>?
        guard getgrgid_r(gid_t(group), &gr, &groupBuffer, groupBuffer.count, &grResult) == 0, grResult != nil,
              var member = gr.gr_mem else { return false }
        while let m = member.pointee {
            if String(cString: m) == userName { return true }
            member += 1
        }
        return false
    }
}

/// Glibc's `struct group` (inside `user(_:isInGroup:)` the name is the parameter's).
private typealias GroupEntry = Glibc.group
