import IsletSystem

enum Machine {
    /// CPU model, online cores and kernel: enough to tell two runs' machines apart.
    static func describe() -> String {
        let cpu = (Processes.readFile("/proc/cpuinfo") ?? "").split(separator: "\n")
            .first(where: { $0.hasPrefix("model name") })
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { String($0.drop(while: { $0 == " " })) } ?? "unknown CPU"
        return "\(cpu), \(SystemInfo.onlineProcessors) cores, Linux \(SystemInfo.kernelRelease)"
    }
}
