import Testing
import Glibc
import IsletSystem
@testable import IsletWeb

/// Issue 44 §15: a page without a password served every local user while the control socket
/// serves only its group.
@Suite("who may use a page without a password")
struct WebPeersTests {
    static let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)

    @Test("root, the daemon's user and the socket group's members; no one else; verdicts kept a minute, bounded")
    func policy() {
        var p = PeerPolicy(group: 990, groupName: "islet", ownUser: 999)
        var asked: [UInt32] = []
        let members: Set<UInt32> = [1000]
        let isMember = { (u: UInt32, g: UInt32) -> Bool in asked.append(u); return g == 990 && members.contains(u) }
        let verdicts = [0, 999, 1000, 1001, 65534].map { p.admits($0, at: Self.t0, isMember: isMember) }
        #expect(verdicts == [true, true, true, false, false])
        #expect(asked == [1000, 1001, 65534], "root and the daemon's user need no database")
        _ = p.admits(1001, at: Self.t0.adding(milliseconds: 1000), isMember: isMember)
        #expect(asked.count == 3, "a verdict is kept")
        _ = p.admits(1001, at: Self.t0.adding(milliseconds: PeerPolicy.verdictMs), isMember: isMember)
        #expect(asked.count == 4, "and asked again after a minute")
        for u in UInt32(2000)..<2200 { _ = p.admits(u, at: Self.t0, isMember: isMember) }
        let kept = Mirror(reflecting: p).children.first { $0.label == "users" }.map { Mirror(reflecting: $0.value).children.count }
        #expect((kept ?? .max) <= PeerPolicy.maximumUsers)
    }

    /// A listening socket on the loopback address of `family`, a client connected to it and the
    /// server's end of that connection; nil where the family has no loopback (no IPv6 here).
    static func loopbackPair(_ family: Int32) -> (server: Int32, client: Int32, accepted: Int32)? {
        let server = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        let client = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        var storage = sockaddr_storage()
        var size: socklen_t
        if family == AF_INET {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            size = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeBytes(of: a) { src in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: src) } }
        } else {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_addr = in6addr_loopback
            size = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeBytes(of: a) { src in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: src) } }
        }
        let ok = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bind(server, a, size) == 0 && listen(server, 1) == 0 && getsockname(server, a, &size) == 0 && connect(client, a, size) == 0
            }
        }
        guard ok else { close(server); close(client); return nil }
        return (server, client, accept(server, nil, nil))
    }

    @Test("the kernel names the owner of a loopback client's socket, by both lookups, over IPv4 and IPv6 (where there is IPv6)")
    func ownerOfALoopbackPeer() throws {
        let v4 = try #require(Self.loopbackPair(AF_INET))
        defer { close(v4.server); close(v4.client); close(v4.accepted) }
        #expect(try TCPPeers.owner(ofPeerOf: v4.accepted) == UInt32(geteuid()))
        // The fallback where NETLINK_SOCK_DIAG is refused (qemu-user): the same row from /proc/net/tcp.
        #expect(try TCPPeers.owner(ofPeerOf: v4.accepted, fromProcOnly: true) == UInt32(geteuid()))
        #expect(throws: SystemError.self) { _ = try TCPPeers.owner(ofPeerOf: v4.server) }   // a listener has no peer
        guard let v6 = Self.loopbackPair(AF_INET6) else { return }
        defer { close(v6.server); close(v6.client); close(v6.accepted) }
        #expect(try TCPPeers.owner(ofPeerOf: v6.accepted) == UInt32(geteuid()))
        #expect(try TCPPeers.owner(ofPeerOf: v6.accepted, fromProcOnly: true) == UInt32(geteuid()))
    }
}
