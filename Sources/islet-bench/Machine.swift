#if canImport(Glibc)
import Glibc
#endif

enum Machine {
    /// CPU model, online cores and kernel: enough to tell two runs' machines apart.
    static func describe() -> String {
        let cpu = (Processes.readFile("/proc/cpuinfo") ?? "").split(separator: "\n")
            .first(where: { $0.hasPrefix("model name") })
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { String($0.drop(while: { $0 == " " })) } ?? "unknown CPU"
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: u.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        return "\(cpu), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, Linux \(release)"
    }
}
