import IsletErrno
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// What the machine and the running program are: for the benchmark's report of where it ran.
public enum SystemInfo {
    /// The kernel's release (uname(2)), e.g. "6.1.0-rpi7-rpi-v8".
    public static var kernelRelease: String {
        var u = utsname()
        guard uname(&u) == 0 else { return "" }
        return withUnsafeBytes(of: u.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// The processors online now.
    public static var onlineProcessors: Int { sysconf(Int32(_SC_NPROCESSORS_ONLN)) }

    /// The machine's uptime and load averages (sysinfo(2): readable where /proc is not, as
    /// under the unit's ProcSubset=pid).
    public static func load() throws(SystemError) -> HostLoad {
        var info = sysinfo()
        guard sysinfo(&info) == 0 else { throw SystemError("sysinfo", Errno.current) }
        // The kernel's fixed point: SI_LOAD_SHIFT (16) fractional bits.
        let scale = Double(1 << 16)
        // sysinfo rounds the uptime up; CLOCK_BOOTTIME's whole seconds are what uptime(1) shows.
        return HostLoad(uptimeSeconds: Int(SystemClock.bootNanoseconds() / 1_000_000_000),
                        averages: [Double(info.loads.0) / scale, Double(info.loads.1) / scale, Double(info.loads.2) / scale])
    }

    /// The address of a C symbol anywhere in the process (dlsym with RTLD_DEFAULT), or nil: how
    /// a program finds what an LD_PRELOAD library added.
    public static func symbol(named name: String) -> UnsafeMutableRawPointer? {
        // RTLD_DEFAULT is the null handle in glibc.
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
    }
}

/// The machine's uptime and its load averages over 1, 5 and 15 minutes.
public struct HostLoad: Sendable, Equatable {
    public var uptimeSeconds: Int
    public var averages: [Double]
}
