import IsletSettings
import IsletNetwork
import IsletWeb
import IsletDaemon
import Foundation
import Testing
import IsletTestSupport
import IsletConfig

@Suite("config file and command line")
struct ConfigTests {
    @Test("every documented key parses, comments and blank lines are skipped")
    func fullFile() throws {
        let text = """
        # Islet
        [daemon]
        socket = /tmp/x.sock   # trailing comment
        socket_group = islet
        socket_mode = 0640
        state_dir = /tmp/state
        log_level = debug
        buttons = mock

        [display]
        bus = /dev/i2c-3
        address = 0x3d
        controller = sh1106
        size = 128x32
        rotation = 180
        on_exit = keep
        expand_seconds = 7
        pixel_shift_minutes = 10
        capture = /tmp/cap.bin
        preview = terminal
        [session]
        minutes = 12.5
        cycles = 0
        language = ar
        cycle_end_seconds = 5
        title = "Evening sit"
        relevance = 60
        """
        let c = try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "t.conf")
        #expect(c.socketPath == "/tmp/x.sock")
        #expect(c.socketGroup == "islet")
        #expect(c.socketMode == 0o640)
        #expect(c.stateDir == "/tmp/state")
        #expect(c.logLevel == .debug)
        #expect(c.buttons == .mock)
        #expect(c.bus == .device("/dev/i2c-3"))
        #expect(c.address == 0x3D)
        #expect(c.controller == .sh1106)
        #expect(c.width == 128 && c.height == 32)
        #expect(c.rotation == .deg180)
        #expect(c.onExit == .keep)
        #expect(c.expandSeconds == 7)
        #expect(c.pixelShiftMinutes == 10)
        #expect(c.capture == "/tmp/cap.bin")
        #expect(c.preview == .terminal)
        #expect(c.session.minutes == 12.5)
        #expect(c.session.cycles == 0)
        #expect(c.session.language == "ar")
        #expect(c.session.cycleEndSeconds == 5)
        #expect(c.session.title == "Evening sit")
        #expect(c.session.relevance == 60 && c.session.attributes.relevance == 60)
        // cycles = 0 is an open-ended session; 12.5 min is 750 s.
        #expect(c.session.attributes.kind == .countdown(cycle: .seconds(750), cycles: nil))
    }

    @Test("[session] relevance outside 0 to 100 names the line and the range")
    func relevanceBounds() {
        for v in ["101", "-1", "nan", "lots"] {
            #expect(performing: { try DaemonConfig(parts: PartRegistry.settings).parsing("[session]\nrelevance = \(v)\n", file: "r.conf") },
                    throws: { "\($0)".contains("r.conf:2") && "\($0)".contains("0 to 100") })
        }
    }

    @Test("a quoted value keeps its #; an unquoted # starts a comment")
    func quotedHash() throws {
        let c = try DaemonConfig(parts: PartRegistry.settings).parsing("[session]\ntitle = \"Sit #2\"  # evening\nlanguage = de # German\n", file: "q.conf")
        #expect(c.session.title == "Sit #2")
        #expect(c.session.language == "de")
    }

    @Test("defaults without a file are the documented ones")
    func defaults() {
        let c = DaemonConfig(parts: PartRegistry.settings)
        #expect(c.bus == .device("/dev/i2c-1"))
        #expect(c.address == 60)   // 0x3C
        #expect(c.controller == .ssd1306)
        #expect(c.width == 128 && c.height == 64)
        #expect(c.socketMode == 0o660)
        #expect(c.session.minutes == 20 && c.session.cycles == 1 && c.session.language == "en")
        #expect(c.session.cycleEndSeconds == 3)
    }

    @Test("decimal and hex addresses", arguments: [("0x3c", 0x3C), ("0X3D", 0x3D), ("60", 60)])
    func addresses(_ text: String, _ value: Int) throws {
        var c = DaemonConfig(parts: PartRegistry.settings)
        try c.set(section: "display", key: "address", value: text, origin: "--address")
        #expect(c.address == value)
    }

    @Test("an error quotes the file's text with control characters escaped, and at most 1,000 characters")
    func errorsArePrintable() {
        let e = configError("[session]\n\u{1B}]0;pwn\u{07} = 1\n")
        #expect(e?.origin == "t.conf:2")
        #expect(e?.message.contains("\\x1b]0;pwn\\x07") == true, "\(e?.message ?? "")")
        #expect(e?.message.unicodeScalars.contains { $0.value < 0x20 } == false)
        // A bidi override in a quoted value must not reorder the rest of the line a reader sees.
        let bidi = configError("[display]\nnight = \u{202E}22:30-07:00\u{2066}\n")
        #expect(bidi?.message.contains("\\u{202e}22:30-07:00\\u{2066}") == true, "\(bidi?.message ?? "")")
        #expect(bidi?.message.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) } == false)
        let long = configError("[session]\ntitle = \(String(repeating: "x", count: 100_000))\n")
        #expect(long.map { $0.message.count <= ConfigError.maximumMessage + 1 } == true)
    }

    @Test("errors name file:line and the accepted values", arguments: [
        ("[display]\nsize = 12x7\n", "t.conf:2", "WIDTHxHEIGHT"),
        ("[display]\n\ncontroller = ssd9999\n", "t.conf:3", "sh1106"),
        ("[session]\ncolour = blue\n", "t.conf:2", "unknown key \"colour\""),
        ("[nope]\n", "t.conf:1", "unknown section [nope]"),
        ("minutes = 3\n", "t.conf:1", "outside any section"),
        // The core's sections first, then every part's (a new part adds its own).
        ("[daemon\n", "t.conf:1", "[daemon], [display], [session], [buttons], [chime], ["),
        ("[session]\nminutes\n", "t.conf:2", "key = value"),
        ("[session]\nminutes = 3\nminutes = 4\n", "t.conf:3", "set twice"),
        ("[display]\naddress = 0x99\n", "t.conf:2", "0x03 to 0x77"),
        ("[daemon]\nsocket_mode = 999\n", "t.conf:2", "octal"),
        ("[session]\ncycles = -1\n", "t.conf:2", "0 to 999"),
        ("[session]\nminutes = 0.01\n", "t.conf:2", "0.05 to 1440"),
        ("[display]\nrotation = 90\n", "t.conf:2", "0 or 180"),
    ])
    func errors(_ text: String, _ origin: String, _ fragment: String) {
        let e = configError(text)
        #expect(e?.origin == origin && e?.message.contains(fragment) == true, "\(text.debugDescription): \(e.map { "\($0)" } ?? "accepted")")
    }

    @Test("flags override the file; unknown flags are errors")
    func flags() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        try "[display]\nbus = /dev/i2c-1\nsize = 128x32\n".write(toFile: dir + "/c.conf", atomically: true, encoding: .utf8)
        let cl = try DaemonCommandLine.parse(["--config", dir + "/c.conf", "--bus", "mock", "--address=61", "--preview", "none"])
        let c = try cl.load(parts: PartRegistry.settings)
        #expect(c.bus == .mock)
        #expect(c.address == 61)
        #expect(c.height == 32, "keys the flags do not touch come from the file")
        #expect(throws: ConfigError.self) { try DaemonCommandLine.parse(["--frobnicate"]) }
        #expect(throws: ConfigError.self) { try DaemonCommandLine.parse(["--bus", "usb"]).load(parts: PartRegistry.settings) }
        #expect(throws: ConfigError.self, "a capture needs the mock bus") {
            try DaemonCommandLine.parse(["--bus", "/dev/i2c-1", "--capture", dir + "/x"]).load(parts: PartRegistry.settings)
        }
        #expect(throws: ConfigError.self, "no ssd1306 panel is 96x48") {
            try DaemonCommandLine.parse(["--bus", "mock", "--size", "96x48"]).load(parts: PartRegistry.settings)
        }
    }
}
