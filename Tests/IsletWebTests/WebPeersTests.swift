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

    @Test("the kernel names the owner of a loopback client's socket: this process's user")
    func ownerOfALoopbackPeer() throws {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server); close(client) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, size) } }
        #expect(bound == 0 && listen(server, 1) == 0)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(server, $0, &size) } }
        let connected = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, size) } }
        #expect(connected == 0)
        let accepted = accept(server, nil, nil)
        defer { close(accepted) }
        #expect(try TCPPeers.owner(ofPeerOf: accepted) == UInt32(geteuid()))
        // The fallback where NETLINK_SOCK_DIAG is refused (qemu-user): the same row from /proc/net/tcp.
        #expect(try TCPPeers.owner(ofPeerOf: accepted, fromProcOnly: true) == UInt32(geteuid()))
        #expect(throws: SystemError.self) { _ = try TCPPeers.owner(ofPeerOf: server) }   // a listener has no peer
    }

    @Test("over IPv6 (::1) too, by both lookups")
    func ownerOfAnIPv6LoopbackPeer() throws {
        let server = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        let client = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server); close(client) }
        var a = sockaddr_in6()
        a.sin6_family = sa_family_t(AF_INET6)
        a.sin6_addr = in6addr_loopback
        var size = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, size) } }
        // A machine without IPv6 on loopback has nothing to test here.
        guard bound == 0 else { return }
        #expect(listen(server, 1) == 0)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(server, $0, &size) } }
        let connected = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, size) } }
        #expect(connected == 0)
        let accepted = accept(server, nil, nil)
        defer { close(accepted) }
        #expect(try TCPPeers.owner(ofPeerOf: accepted) == UInt32(geteuid()))
        #expect(try TCPPeers.owner(ofPeerOf: accepted, fromProcOnly: true) == UInt32(geteuid()))
    }
}
