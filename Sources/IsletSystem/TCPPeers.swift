#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// One end of a TCP connection: the address's bytes in network order (4 for IPv4, 16 for IPv6)
/// and the port.
public struct TCPEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var address: [UInt8]
    public var port: UInt16

    public init(address: [UInt8], port: UInt16) {
        self.address = address
        self.port = port
    }

    /// An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`) as its IPv4 self; anything else as it is.
    public var unmapped: TCPEndpoint {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else { return self }
        return TCPEndpoint(address: Array(address[12...]), port: port)
    }

    public var description: String {
        address.count == 4 ? address.map(String.init).joined(separator: ".") + ":\(port)"
            : "[" + stride(from: 0, to: address.count, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }.joined(separator: ":") + "]:\(port)"
    }

    /// A connected socket's own end and its peer's.
    public static func ends(of fd: Int32) throws(SystemError) -> (local: TCPEndpoint, peer: TCPEndpoint) {
        func read(_ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32, _ name: String) throws(SystemError) -> TCPEndpoint {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let rc = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) } }
            guard rc == 0 else { throw SystemError(name) }
            switch Int32(storage.ss_family) {
            case AF_INET:
                return withUnsafeBytes(of: storage) { raw in
                    let a = raw.load(as: sockaddr_in.self)
                    return TCPEndpoint(address: withUnsafeBytes(of: a.sin_addr) { Array($0) }, port: UInt16(bigEndian: a.sin_port))
                }
            case AF_INET6:
                return withUnsafeBytes(of: storage) { raw in
                    let a = raw.load(as: sockaddr_in6.self)
                    return TCPEndpoint(address: withUnsafeBytes(of: a.sin6_addr) { Array($0) }, port: UInt16(bigEndian: a.sin6_port))
                }
            default: throw SystemError("\(name): not a TCP/IP socket", .invalidArgument)
            }
        }
        return (try read(getsockname, "getsockname"), try read(getpeername, "getpeername"))
    }
}

/// The kernel's tables of TCP sockets (/proc/net/tcp, /proc/net/tcp6), which name the user
/// that owns each one.
public enum TCPSocketTable {
    /// Bounds a read of a table (each line is ~150 bytes: some 28,000 sockets).
    public static let maximumBytes = 4 << 20

    /// The user that owns the socket whose own end is `local` and whose peer is `remote`, read
    /// from `table` (the text of /proc/net/tcp or tcp6); nil when no line has that pair.
    public static func owner(local: TCPEndpoint, remote: TCPEndpoint, in table: [UInt8]) -> UInt32? {
        let want = (text(local), text(remote))
        for line in table.split(separator: 10).dropFirst() {
            let fields = line.split(separator: 32)
            guard fields.count > 7 else { continue }
            if fields[1].elementsEqual(want.0.utf8), fields[2].elementsEqual(want.1.utf8),
               let uid = UInt32(String(decoding: fields[7], as: UTF8.self)) {
                return uid
            }
        }
        return nil
    }

    /// The kernel's spelling of an end: the address as 32-bit words in host order, each as 8
    /// upper-case hex digits, then `:` and the port as 4.
    static func text(_ e: TCPEndpoint) -> String {
        var out = ""
        for w in stride(from: 0, to: e.address.count, by: 4) {
            var word: UInt32 = 0
            withUnsafeMutableBytes(of: &word) { raw in
                for i in 0..<4 where w + i < e.address.count { raw[i] = e.address[w + i] }
            }
            out += hex(UInt64(word), digits: 8)
        }
        return out + ":" + hex(UInt64(e.port), digits: 4)
    }

    private static func hex(_ v: UInt64, digits: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }

    /// Who owns the far end of the connection on `fd` when that end is on this machine: its
    /// socket is the line whose own end is our peer and whose peer is our own end.
    public static func peerOwner(of fd: Int32) throws(SystemError) -> UInt32? {
        let (local, peer) = try TCPEndpoint.ends(of: fd)
        let l = local.unmapped, p = peer.unmapped
        // An IPv4 client is in tcp; an IPv6 one (or a dual-stack socket that maps IPv4) in tcp6.
        let tables = l.address.count == 4 ? ["/proc/net/tcp", "/proc/net/tcp6"] : ["/proc/net/tcp6"]
        for path in tables {
            let table: [UInt8]
            switch FileSystem.readFile(path, limit: maximumBytes) {
            case .success(let b): table = b
            case .failure(let e): throw e
            }
            let mapped = { (e: TCPEndpoint) in TCPEndpoint(address: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + e.address, port: e.port) }
            let (a, b) = path.hasSuffix("6") && p.address.count == 4 ? (mapped(p), mapped(l)) : (p, l)
            if let uid = owner(local: a, remote: b, in: table) { return uid }
        }
        return nil
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
