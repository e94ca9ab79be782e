import IsletSettings
import IsletNetwork
import IsletWeb
import IsletDaemon
import Testing
import IsletCore
import IsletConfig

/// `[display] night`, `night_contrast`, `night_idle`: defaults, values, errors with their line
/// and what is accepted, and a reload that takes them without a restart.
@Suite struct NightConfigTests {
    func load(_ display: String) throws(ConfigError) -> DaemonConfig {
        try DaemonConfig(parts: PartRegistry.settings).parsing("[display]\nbus = mock\n" + display, file: "isletd.conf").validated(origin: "isletd.conf")
    }

    @Test func defaultsAreNoNightTheDimmestContrastAndDark() throws {
        let c = try #require(try load("").parts[NightSettings.self])
        #expect(c.window == nil && c.contrast == 0 && c.idle == .dark)
    }

    @Test func valuesAreTaken() throws {
        let c = try #require(try load("night = 22:30-07:00\nnight_contrast = 16\nnight_idle = on\n").parts[NightSettings.self])
        #expect(c.window == NightWindow(start: 22 * 60 + 30, end: 7 * 60))
        #expect(c.contrast == 16 && c.idle == .on)
        #expect(try load("night = off\n").parts[NightSettings.self]?.window == nil)
        #expect(try load("night = \"01:00-05:00\"\n").parts[NightSettings.self]?.window == NightWindow(start: 60, end: 300))
    }

    @Test(arguments: [
        ("night = 22:30\n", "HH:MM-HH:MM"), ("night = 22:30-22:30\n", "start and end different"),
        ("night = 25:00-07:00\n", "HH:MM-HH:MM"), ("night = 10pm-7am\n", "or off"),
        ("night_contrast = 256\n", "0 to 255"), ("night_contrast = -1\n", "0 to 255"),
        ("night_idle = off\n", "dark, on"),
    ])
    func badValuesNameTheLineAndWhatIsAccepted(_ c: (String, String)) {
        do {
            _ = try load(c.0)
            Issue.record("accepted: \(c.0)")
        } catch {
            #expect(error.origin == "isletd.conf:3", "\(error)")
            #expect(error.message.contains(c.1), "\(error)")
        }
    }

    @Test func theKeysAreListed() {
        for key in ["night", "night_contrast", "night_idle"] { #expect(DaemonConfig(parts: PartRegistry.settings).keys["display"]?.contains(key) == true) }
    }

    /// SIGHUP: the night keys change in place (the panel's own contrast waits for a restart).
    @Test func aReloadTakesTheNightKeys() throws {
        let old = try load("night = 22:30-07:00\n")
        let new = try load("night = 23:00-06:00\nnight_contrast = 9\nnight_idle = on\n")
        let (kept, waiting) = old.reloaded(with: new)
        let night = try #require(kept.parts[NightSettings.self])
        #expect(night == new.parts[NightSettings.self] && night.contrast == 9 && night.idle == .on)
        #expect(waiting.isEmpty)
    }
}
