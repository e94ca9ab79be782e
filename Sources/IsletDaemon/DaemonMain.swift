import IsletSystem
import IsletProtocol
import IsletStore

/// `isletd`'s command line: flags override the config file key by key.
public struct DaemonCommandLine: Sendable {
    public var configPath: String?
    public var checkOnly = false
    /// Writes (or, without [mqtt], removes) the systemd drop-in that opens the network.
    public var networkDropIn: String?
    public var help = false
    public var version = false
    /// (section, key, value, flag) in the order given.
    public var overrides: [(String, String, String, String)] = []
    public var mockUnplug: (Int64, Int64)?

    public static let defaultConfigPath = "/etc/islet/isletd.conf"

    static let flagKeys: [String: (String, String)] = [
        "--bus": ("display", "bus"), "--address": ("display", "address"),
        "--controller": ("display", "controller"), "--size": ("display", "size"),
        "--buttons": ("daemon", "buttons"), "--socket": ("daemon", "socket"),
        "--state-dir": ("daemon", "state_dir"), "--capture": ("display", "capture"),
        "--preview": ("display", "preview"), "--log-level": ("daemon", "log_level"),
        "--test-pattern": ("display", "test_pattern_seconds"),
    ]

    public static let usage = """
    usage: isletd [--config FILE] [--check-config] [--network-dropin FILE] [--bus mock|/dev/i2c-N] [--address ADDR]
                  [--controller ssd1306|ssd1309|sh1106|sh1107] [--size WxH] [--buttons none|mock|gpio]
                  [--socket PATH] [--state-dir DIR] [--capture FILE] [--preview terminal|none]
                  [--log-level error|warning|notice|info|debug] [--test-pattern SECONDS]
                  [--help] [--version]
    The config file is \(defaultConfigPath) when present; --config makes a missing file an error.
    Flags override the file. See README.md, "Configuration", for every key and its default.
    """

    public static func parse(_ args: [String]) throws(ConfigError) -> DaemonCommandLine {
        var cl = DaemonCommandLine()
        var i = 0
        func value(_ flag: String) throws(ConfigError) -> String {
            i += 1
            guard i < args.count else { throw ConfigError(flag, "needs a value") }
            return args[i]
        }
        while i < args.count {
            var a = args[i]
            var inline: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                inline = String(a[a.index(after: eq)...])
                a = String(a[..<eq])
            }
            func v() throws(ConfigError) -> String { if let inline { return inline }; return try value(a) }
            switch a {
            case "--config": cl.configPath = try v()
            case "--check-config": cl.checkOnly = true
            case "--network-dropin": cl.networkDropIn = try v()
            case "-h", "--help": cl.help = true
            case "--version": cl.version = true
            case "--mock-unplug":
                // Test seam: START:LENGTH in seconds after start-up, the mock bus fails meanwhile.
                let s = try v()
                let parts = s.split(separator: ":")
                // Bounded so the milliseconds always fit an Int64 (1e308 used to trap).
                guard parts.count == 2, let st = Double(parts[0]), let ln = Double(parts[1]),
                      st.isFinite, ln.isFinite, (0...86_400).contains(st), ln > 0, ln <= 86_400 else {
                    throw ConfigError(a, "expects START:LENGTH in seconds, each from 0 to 86400 (a day), e.g. 1.5:3")
                }
                cl.mockUnplug = (Int64(st * 1000), Int64(ln * 1000))
            default:
                guard let (section, key) = flagKeys[a] else {
                    throw ConfigError(a, "unknown option; see isletd --help")
                }
                cl.overrides.append((section, key, try v(), a))
            }
            i += 1
        }
        return cl
    }

    /// Reads the config file (if any) and applies the flags.
    public func load() throws(ConfigError) -> DaemonConfig {
        var c = DaemonConfig()
        let path = configPath ?? Self.defaultConfigPath
        if configPath != nil || FileSystem.exists(path) {
            switch FileSystem.readFile(path) {
            case .success(let bytes):
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    // Name the first line that is not UTF-8, so the fix is one look away.
                    var line = 1
                    for chunk in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
                        if String(validating: chunk, as: UTF8.self) == nil { break }
                        line += 1
                    }
                    throw ConfigError("\(path):\(line)", "is not UTF-8 text (save the file as UTF-8)")
                }
                c = try c.parsing(text, file: path)
            case .failure(let e):
                if e.operation.hasSuffix("not a regular file") {
                    throw ConfigError(path, "is not a regular file (a FIFO, a device or a directory); pass a config file to --config")
                }
                throw ConfigError(path, "cannot be read: \(e.errno); pass an existing file to --config")
            }
        }
        for (section, key, value, flag) in overrides {
            try c.set(section: section, key: key, value: value, origin: flag)
        }
        if let u = mockUnplug {
            guard c.bus == .mock else { throw ConfigError("--mock-unplug", "works only with --bus mock") }
            c.mockUnplug = (u.0, u.1)
        }
        return try c.validated(origin: configPath ?? "display")
    }
}

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
        do { config = try cl.load() }
        catch {
            log.error("configuration error: \(error)")
            return ConfigError.exitStatus
        }
        if let file = cl.networkDropIn {
            return writeNetworkDropIn(file, config: config, configPath: cl.configPath ?? DaemonCommandLine.defaultConfigPath, log: log)
        }
        if cl.checkOnly {
            let paths = DaemonPaths.resolve(config)
            print("configuration OK: socket \(paths.socket), state \(paths.stateDir), bus \(config.bus), \(config.controller.rawValue) \(config.width)x\(config.height)")
            return 0
        }
        log.threshold = config.logLevel
        do {
            let daemon = try Daemon(config: config, reload: { () throws(ConfigError) -> DaemonConfig in try cl.load() }, log: log)
            return daemon.run()
        } catch {
            log.error(error.message)
            return error.status
        }
    }

    /// `--network-dropin FILE`: the unit's network for [mqtt] (the package's generator calls it
    /// at every daemon-reload); without [mqtt] the file is removed.
    static func writeNetworkDropIn(_ file: String, config: DaemonConfig, configPath: String, log: Logger) -> Int32 {
        guard let text = NetworkDropIn.text(for: config.mqtt, configPath: configPath) else {
            if FileSystem.exists(file) {
                do { try FileSystem.remove(file) } catch { log.error("cannot remove \(file): \(error)"); return 73 }
                print("removed \(file): no [mqtt], the unit keeps its network closed")
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
        print("wrote \(file): the unit may reach \(config.mqtt?.url?.description ?? "the broker")")
        return 0
    }

    static func printError(_ s: String) {
        try? Posix.writeAll(2, Array((s + "\n").utf8))
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
