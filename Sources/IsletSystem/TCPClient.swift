#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// A TCP connection to an IPv4 address literal: how the tests and the benchmark talk to the
/// web page as a browser would (loopback only; name resolution is not this type's job).
public enum TCPClient {
    /// A blocking connection to `address`:`port` (close-on-exec).
    /// `from`: the local address to connect from (another loopback address, so that a test or
    /// a benchmark can play several clients); nil lets the kernel choose.
    public static func connect(_ address: String, port: UInt16, from source: String? = nil) throws(SystemError) -> FileDescriptor {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, address, &addr.sin_addr) == 1 else {
            throw SystemError("\(address) is not an IPv4 address", .invalidArgument)
        }
        let fd = try FileDescriptor(returned: socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket")
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1 else {
                throw SystemError("\(source) is not an IPv4 address", .invalidArgument)
            }
            let b = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd.raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard b == 0 else { throw SystemError("bind to \(source)") }
        }
        let r = SystemCall.retryingInterrupts {
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd.raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard r == 0 else { throw SystemError("connect to \(address):\(port)") }
        return fd
    }
}
