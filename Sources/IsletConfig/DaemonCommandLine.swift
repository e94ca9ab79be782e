import IsletSystem
import IsletSettings

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

    /// Reads the config file (if any) and applies the flags; `parts` are the settings types
    /// of the parts there are (the daemon's registry).
    public func load(parts: [any PartSettings.Type]) throws(ConfigError) -> DaemonConfig {
        var c = DaemonConfig(parts: parts)
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
                if e.errno == .fileTooLarge {
                    throw ConfigError(path, "is larger than 1 MiB, which no config file needs (the example is a few KB); is it the right file?")
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
