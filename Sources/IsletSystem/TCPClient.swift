#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// A TCP connection to an IPv4 address literal: how the tests and the benchmark talk to the
/// web page as a browser would (loopback only; name resolution is not this type's job).
public enum TCPClient {
    /// A blocking connection to `address`:`port` (close-on-exec).
    public static func connect(_ address: String, port: UInt16) throws(SystemError) -> FileDescriptor {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        guard inet_pton(AF_INET, address, &addr.sin_addr) == 1 else {
            throw SystemError("\(address) is not an IPv4 address", .invalidArgument)
        }
        let fd = try FileDescriptor(returned: socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket")
        let r = SystemCall.retryingInterrupts {
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd.raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard r == 0 else { throw SystemError("connect to \(address):\(port)") }
        return fd
    }
}
