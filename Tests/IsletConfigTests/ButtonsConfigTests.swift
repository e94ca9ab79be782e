import IsletTestSupport
import IsletInput
import Testing
import IsletLinux
import IsletConfig
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ButtonsConfigTests {
    private func config(_ lines: [(String, String)], chime: [(String, String)] = []) throws(ConfigValueError) -> ButtonConfig {
        var c = ButtonConfig()
        for (k, v) in lines { try c.set(section: "buttons", key: k, value: v) }
        for (k, v) in chime { try c.set(section: "chime", key: k, value: v) }
        try c.validate()
        return c
    }

    private func rejection(_ lines: [(String, String)], chime: [(String, String)] = []) -> ConfigValueError? {
        do { _ = try config(lines, chime: chime); return nil } catch { return error }
    }

    @Test func defaultsAreTheIssuesMap() throws {
        let c = try config([])
        // Issue 6 §1: reset is a long press (a brush cannot reset), expand a long press of toggle.
        #expect(c.map["toggle", .press]?.action == .toggle)
        #expect(c.map["toggle", .longPress]?.action == .expand)
        #expect(c.map["reset", .press] == nil)
        #expect(c.map["reset", .longPress]?.action == .reset)
        #expect(c.buttons == ["toggle", "reset", "expand"])
        #expect(c.lines.map(\.line) == ["GPIO17", "GPIO27", "GPIO22"])
        #expect(c.debounceMilliseconds == 30 && c.longPressMilliseconds == 800)
        #expect(c.bias == .pullUp && c.activeLow)
        #expect(!c.chime.isEnabled)
    }

    @Test func aPushedAlertSoundsTheCycleEndsPatternOnceEvenWhenChanged() throws {
        // docs/HARDWARE.md: an alert is one strike, the cycle end's pattern.
        #expect(ChimeConfig().pattern(for: .alert) == ChimePattern.defaultCycleEnd)
        var c = ChimeConfig()
        c.cycleEnd = try ChimePattern.parse("50")
        #expect(c.pattern(for: .alert)?.description == "50")
    }

    @Test func goodLinesChangeWhatTheySay() throws {
        let c = try config([
            ("chip", "pinctrl-rp1"), ("bias", "pull-down"), ("active_low", "false"),
            ("debounce_ms", "15"), ("long_press_ms", "1200"),
            ("button.pause", "GPIO5"), ("button.expand", "none"), ("button.reset", "6"),
            ("on.pause.press", "pause@kitchen"), ("on.toggle.long_press", "none"),
            ("on.toggle.release", "resume"),
        ])
        #expect(c.chip == "pinctrl-rp1" && c.bias == .pullDown && !c.activeLow)
        #expect(c.debounceMilliseconds == 15 && c.longPressMilliseconds == 1200)
        #expect(c.buttons == ["toggle", "reset", "pause"])
        #expect(c.map["pause", .press] == ButtonBinding(button: "pause", gesture: .press, action: .pause, timerID: "kitchen"))
        #expect(c.map["toggle", .longPress] == nil)
        #expect(c.map["toggle", .release]?.action == .resume)
        // Removing a button removes its bindings, so validation does not trip over them.
        #expect(c.map.bindings.allSatisfy { $0.button != "expand" })
        let lines = try c.gpioLines()
        #expect(lines.map(\.spec) == [.named("GPIO17", chip: "pinctrl-rp1"), .offset(6, chip: "pinctrl-rp1"),
                                      .named("GPIO5", chip: "pinctrl-rp1")])
    }

    @Test func chipQualifiedLinesOverrideTheSectionChip() throws {
        let c = try config([("chip", "gpiochip4"), ("button.toggle", "gpiochip0:17")])
        #expect(try c.gpioLines()[0].spec == .offset(17, chip: "gpiochip0"))
    }

    @Test(arguments: [
        ("source", "gpio", "chip"),
        ("bias", "pullup", "pull-up"),
        ("active_low", "maybe", "true"),
        ("active_low", "enabled", "on"),
        ("debounce_ms", "-1", "0…1000"),
        ("debounce_ms", "2000", "0…1000"),
        ("long_press_ms", "50", "100…10000"),
        ("long_press_ms", "1.5", "100…10000"),
        ("on.toggle.press", "explode", "toggle"),
        ("on.toggle.double_press", "toggle", "long_press"),
        ("on.toggle", "toggle", "on.toggle.press"),
        ("on.toggle.press", "toggle@Kitchen Timer", "toggle@meditation"),
        ("button.Toggle", "GPIO17", "toggle"),
        ("button.toggle", "GPIO 17", "GPIO17"),
        ("button.toggle", "gpiochip0:", "GPIO17"),
        ("colour", "red", "debounce_ms"),
    ])
    func badButtonLinesAreRejectedListingWhatIsAccepted(key: String, value: String, listed: String) {
        let e = rejection([(key, value)])
        #expect(e?.key == key)
        #expect(e?.value == value)
        #expect(e?.accepted.contains { $0.contains(listed) } == true, "\(String(describing: e))")
        // The message a person reads carries the accepted values too.
        #expect(e?.description.contains(listed) == true)
    }

    @Test func aBindingToAnUndefinedButtonIsRejectedAtValidation() {
        let e = rejection([("on.pause.press", "pause")])
        #expect(e?.key == "on.pause.press")
        #expect(e?.problem.contains("button.pause") == true)
        #expect(e?.accepted == ["toggle", "reset", "expand"])
    }

    @Test func aBareOffsetNeedsAChip() {
        let e = rejection([("button.toggle", "17")])
        #expect(e?.key == "button.toggle")
        #expect(e?.problem.contains("chip") == true)
    }

    @Test func longPressMustOutlastDebounce() {
        let e = rejection([("debounce_ms", "500"), ("long_press_ms", "400")])
        #expect(e?.key == "long_press_ms")
    }

    @Test func aLineUsedTwiceIsRejected() {
        #expect(rejection([("button.reset", "GPIO17")])?.key == "button.reset")
        #expect(rejection([], chime: [("line", "GPIO22")])?.key == "[chime] line")
    }

    @Test func chimeKeys() throws {
        let c = try config([], chime: [("line", "GPIO18"), ("active_low", "yes"),
                                       ("cycle_end", "100, 50 ,100"), ("completion", "none")])
        #expect(c.chime.isEnabled && c.chime.activeLow)
        #expect(c.chime.cycleEnd?.durationsMilliseconds == [100, 50, 100])
        #expect(c.chime.completion == nil)
        #expect(try c.chime.gpioLine() == .named("GPIO18", chip: nil))
    }

    @Test(arguments: [
        ("cycle_end", "200,,100"), ("cycle_end", ""), ("completion", "0"), ("completion", "20000"),
        ("completion", "5000,5000,1"), ("cycle_end", "loud"), ("volume", "11"), ("line", "gpiochip0:"),
    ])
    func badChimeLines(key: String, value: String) {
        let e = rejection([], chime: [(key, value)])
        #expect(e?.key == key)
        #expect(e?.accepted.isEmpty == false)
    }

    @Test func anUnknownSectionIsNamed() {
        var c = ButtonConfig()
        #expect(throws: ConfigValueError.self) { try c.set(section: "display", key: "rotate", value: "180") }
    }

    @Test func interpreterFromConfigDefersTheTogglePressBecauseItHasALongPress() {
        var i = ButtonInterpreter(config: ButtonConfig())
        let t0: UInt64 = 1_000_000_000
        // Toggle: nothing on the way down (its long press means expand) …
        #expect(i.handle([ButtonEdge(button: "toggle", pressed: true, timestampNanoseconds: t0)]) == [])
        // … a short press toggles at the release.
        let cmds = i.handle([ButtonEdge(button: "toggle", pressed: false, timestampNanoseconds: t0 + 200_000_000)])
        #expect(cmds.map(\.action) == [.toggle])
        #expect(cmds.first?.timerID == nil)
        // Expand has only a press: it acts on the first edge.
        let e = i.handle([ButtonEdge(button: "expand", pressed: true, timestampNanoseconds: t0 + 400_000_000)])
        #expect(e.map(\.action) == [.expand])
        #expect(e.first?.event.timestampNanoseconds == t0 + 400_000_000)
    }

    @Test func aBrushOfResetDoesNothingAndAHoldResets() {
        var i = ButtonInterpreter()
        let t0: UInt64 = 5_000_000_000
        #expect(i.handle([ButtonEdge(button: "reset", pressed: true, timestampNanoseconds: t0),
                          ButtonEdge(button: "reset", pressed: false, timestampNanoseconds: t0 + 150_000_000)]) == [])
        _ = i.handle([ButtonEdge(button: "reset", pressed: true, timestampNanoseconds: t0 + 1_000_000_000)])
        #expect(i.nextDeadline == t0 + 1_800_000_000)
        #expect(i.advance(to: t0 + 1_800_000_000).map(\.action) == [.reset])
    }

    @Test func aTimerIDInTheMapTravelsWithTheCommand() throws {
        let c = try config([("on.expand.press", "pause@kitchen")])
        var i = ButtonInterpreter(config: c)
        let cmds = i.handle([ButtonEdge(button: "expand", pressed: true, timestampNanoseconds: 10)])
        #expect(cmds.map(\.timerID) == ["kitchen"])
        #expect(cmds.map(\.action) == [.pause])
    }
}

/// Hardware/buttons-and-chime.conf claims to list every key at its default: parse it with the
/// real `set(section:key:value:)` and compare with an untouched config.
@Suite struct ButtonsConfigFileTests {
    @Test func theShippedSnippetParsesToTheDefaults() throws {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let path = parts.joined(separator: "/") + "/Hardware/buttons-and-chime.conf"
        guard let text = readTextFile(path) else { Issue.record("cannot read \(path)"); return }
        var config = ButtonConfig()
        var section = ""
        var keys = 0
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: " \t")
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") { section = String(line.dropFirst().dropLast()); continue }
            guard let eq = line.firstIndex(of: "=") else { Issue.record("line \(n + 1): no '='"); continue }
            do {
                try config.set(section: section, key: String(line[..<eq]), value: String(line[line.index(after: eq)...]))
                keys += 1
            } catch {
                Issue.record("\(path):\(n + 1): \(error)")
            }
        }
        try config.validate()
        #expect(config == ButtonConfig())
        // Every key of both sections: 5 plain + 3 button.NAME + 4 on.NAME.GESTURE, and 5 in [chime].
        #expect(keys == 17)
    }
}

private extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        guard let s = firstIndex(where: { !set.contains($0) }), let e = lastIndex(where: { !set.contains($0) }) else { return "" }
        return String(self[s...e])
    }
}

