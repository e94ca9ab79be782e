import Testing
import IsletSettings
import IsletProtocol
import IsletCore
import IsletConfig
import IsletDaemon

/// The page's settings over the file's (docs/WEB.md "Settings"): the file's own parser decides,
/// with its own words; each value says where it comes from.
struct SettingsOverlayTests {
    func file(_ text: String) throws -> DaemonConfig {
        try DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "isletd.conf").validated(origin: "isletd.conf")
    }

    @Test func pageValuesGoOverTheFilesAndSayWhereTheyComeFrom() throws {
        let f = try file("[session]\nminutes = 20\n[display]\nnight_contrast = 5\n")
        let c = try f.applying(page: ["session.minutes": "25", "display.night": "22:30-07:00", "session.kind": "stopwatch"])
        #expect(c.session.minutes == 25 && c.session.stopwatch)
        #expect(c.parts[NightSettings.self]?.window?.description == "22:30-07:00")
        let entries = Dictionary(uniqueKeysWithValues: c.settingsEntries(file: f).map { ($0.key, $0) })
        #expect(entries.keys.sorted() == SettingsDocument.editableKeys.sorted())
        #expect(entries["session.minutes"]?.value == "25" && entries["session.minutes"]?.source == "page" && entries["session.minutes"]?.fileValue == "20")
        #expect(entries["display.night_contrast"]?.value == "5" && entries["display.night_contrast"]?.source == "file")
        #expect(entries["session.cycles"]?.value == "1" && entries["session.cycles"]?.source == "default")
        #expect(entries["session.kind"]?.choices == ["countdown", "stopwatch"])
        // Reset: without the page's value, the file's is in force again.
        let reset = try f.applying(page: ["display.night": "22:30-07:00"])
        #expect(reset.session.minutes == 20 && reset.settingsEntries(file: f).first { $0.key == "session.minutes" }?.source == "file")
    }

    /// A value the file would refuse is refused with the file's message (its origin aside).
    @Test func aRefusalIsTheFilesOwnMessage() throws {
        let f = try file("")
        for (section, key, bad) in [("session", "minutes", "2000"), ("session", "kind", "until"), ("display", "night", "25:00-01:00"),
                                    ("display", "contrast", "256"), ("display", "night_idle", "dim"), ("session", "language", "x"),
                                    ("session", "stale_after_seconds", "0.5"), ("session", "relevance", "101")] {
            let fromFile = try #require(configError("[\(section)]\n\(key) = \(bad)\n"), "\(key)")
            let fromPage = f.refusal(setting: "\(section).\(key)", to: bad, page: [:])
            #expect(fromPage == fromFile.message, "\(key)")
            #expect(fromPage?.contains("accepted:") == true, "\(key)")
        }
        #expect(f.refusal(setting: "session.minutes", to: "25", page: [:]) == nil)
        #expect(f.refusal(setting: "session.minutes", to: "2000", page: [:])?.contains("a number from 0.05 to 1440") == true)
    }

    /// The defaults the view shows are the parser's own: taken as page values they change nothing.
    @Test func theDefaultsShownAreTheDefaults() throws {
        let f = try file("")
        var all: [String: String] = [:]
        for k in SettingsDocument.editableKeys { all[k] = f.defaultText(k) }
        let c = try f.applying(page: all)
        #expect(c.session == f.session)
        #expect(c.parts[NightSettings.self] == NightSettings())
        // Hoisted: trixie's Swift (the arm64 build) refuses a `try` inside #expect's operand.
        let fileContrast = try f.panelModel(origin: "t").contrast
        #expect(c.contrast == fileContrast)
        #expect(f.settingsEntries(file: f).allSatisfy { $0.source == "default" && !$0.accepts.isEmpty })
    }

    @Test func theNewSessionKeys() throws {
        let c = try file("[session]\nkind = stopwatch\nstale_after_seconds = 90\n")
        #expect(c.session.stopwatch && c.session.staleAfterSeconds == 90)
        if case .stopwatch = c.session.attributes.kind {} else { Issue.record("toggle's session is not a stopwatch") }
        #expect(c.session.attributes.staleAfter == .seconds(90))
        #expect(try file("[session]\nstale_after_seconds = off\n").session.staleAfterSeconds == nil)
        // A start without its own takes the session's; an until activity's source decides its own.
        #expect(StartRequest().attributes(timer: nil, defaults: c.session).staleAfter == .seconds(90))
        var until = StartRequest()
        until.until = PushedContent(endsAt: nil, progress: 0.5, text: nil)
        #expect(until.attributes(timer: "x", defaults: c.session).staleAfter == nil)
        #expect(configError("[session]\nkind = until\n")?.description.contains("isletd.conf") == false)
        #expect(configError("[session]\nkind = until\n", file: "x.conf")?.origin == "x.conf:2")
    }

    /// SIGHUP: the day's contrast now reloads in place (one 81h command).
    @Test func theDayContrastReloads() throws {
        let (kept, waiting) = try file("[display]\ncontrast = 10\n").reloaded(with: try file("[display]\ncontrast = 90\n"))
        #expect(kept.contrast == 90 && waiting.isEmpty)
    }

    /// 0 is off in any spelling, at both doors alike, and `accepts` says so; a page's empty
    /// night is listed as the `off` it is, not as a blank.
    @Test func zeroStalenessAndAnEmptyNightAreOff() throws {
        let f = try file("")
        for zero in ["0", "00", "0.0"] {
            #expect(try file("[session]\nstale_after_seconds = \(zero)\n").session.staleAfterSeconds == nil, "\(zero)")
            #expect(f.refusal(setting: "session.stale_after_seconds", to: zero, page: [:]) == nil, "\(zero)")
        }
        let stale = f.settingsEntries(file: f).first { $0.key == "session.stale_after_seconds" }
        #expect(stale?.accepts.contains("off or 0 (never)") == true, "\(String(describing: stale?.accepts))")
        #expect(configError("[session]\nstale_after_seconds = -1\n")?.message == f.refusal(setting: "session.stale_after_seconds", to: "-1", page: [:]))
        let c = try f.applying(page: ["display.night": ""])
        let night = c.settingsEntries(file: f).first { $0.key == "display.night" }
        #expect(night?.value == "off" && night?.source == "page", "\(String(describing: night))")
        let fromFile = try file("[display]\nnight =\n")
        #expect(fromFile.settingsEntries(file: fromFile).first { $0.key == "display.night" }?.fileValue == "off")
    }
}
