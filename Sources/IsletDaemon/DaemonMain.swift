import IsletParts
import IsletSystem
import IsletProtocol
import IsletConfig
import IsletSettings

/// The isletd program: parse, load, run. Returns the exit status.
public enum DaemonMain {
    public static func run(arguments: [String]) -> Int32 {
        let log = Logger()
        let cl: DaemonCommandLine
        do { cl = try DaemonCommandLine.parse(arguments) }
        catch {
            log.error("\(error)")
            printError(DaemonCommandLine.usage)
            return 64
        }
        if cl.help { print(DaemonCommandLine.usage); return 0 }
        if cl.version { print("isletd \(IsletVersion.string)"); return 0 }
        let config: DaemonConfig
        do { config = try cl.load(parts: PartRegistry.settings) }
        catch {
            log.error("configuration error: \(error)")
            return ConfigError.exitStatus
        }
        if let file = cl.networkDropIn {
            return writeNetworkDropIn(file, config: config, configPath: cl.configPath ?? DaemonCommandLine.defaultConfigPath, log: log)
        }
        if cl.checkOnly {
            let paths = DaemonPaths.resolve(config)
            print("configuration OK: socket \(paths.socket), state \(paths.stateDir), bus \(config.bus), \(config.controller.rawValue) \(config.width)x\(config.height)"
                  + config.parts.present.compactMap(\.checkSummary).map { ", \($0)" }.joined())
            return 0
        }
        log.threshold = config.logLevel
        do {
            let daemon = try Daemon(config: config, reload: { () throws(ConfigError) -> DaemonConfig in try cl.load(parts: PartRegistry.settings) }, log: log)
            return daemon.run()
        } catch {
            log.error(error.message)
            return error.status
        }
    }

    /// `--network-dropin FILE`: the unit's network for [mqtt] (the package's generator calls it
    /// at every daemon-reload); without [mqtt] the file is removed.
    static func writeNetworkDropIn(_ file: String, config: DaemonConfig, configPath: String, log: Logger) -> Int32 {
        let needs = config.parts.present.compactMap(\.network)
        guard let text = NetworkNeed.dropIn(needs, configPath: configPath) else {
            if FileSystem.exists(file) {
                do { try FileSystem.remove(file) } catch { log.error("cannot remove \(file): \(error)"); return 73 }
                print("removed \(file): no [mqtt] and no [web], the unit keeps its network closed")
            }
            return 0
        }
        let dir = String(file[..<(file.lastIndex(of: "/") ?? file.startIndex)])
        do {
            if !dir.isEmpty { try Posix.makeDirectories(dir) }
            try FileSystem.writeFile(file, Array(text.utf8), permissions: 0o644)
        } catch {
            log.error("cannot write \(file): \(error)")
            return 73
        }
        print("wrote \(file): the unit may reach \(needs.map(\.reach).joined(separator: " and "))")
        return 0
    }

    static func printError(_ s: String) {
        StandardStream.error.writeLine(s)
    }
}

/// The process's arguments as the kernel holds them (without the program name).
public enum ProcessArguments {
    public static func fromProc() -> [String] {
        guard case .success(let bytes) = FileSystem.readFile("/proc/self/cmdline") else { return [] }
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // The buffer ends with a NUL, which leaves one empty element at the end.
        return Array(parts.dropFirst().dropLast(parts.last == "" ? 1 : 0))
    }
}
