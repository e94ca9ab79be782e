import Testing
import IsletDaemon
import IsletInput
import IsletConfig

/// The chime's config-bound side: patterns chosen by the [chime] section, and the mock output.
@Suite struct ButtonsChimeOutputTests {
    @Test func handleUsesTheConfiguredPatternOrStaysQuiet() throws {
        var config = ChimeConfig()
        try config.set(key: "line", value: "GPIO18")
        try config.set(key: "cycle_end", value: "none")
        var p = ChimePlayer()
        #expect(p.handle(.cycleEnd, config: config, at: 0) == nil)
        #expect(p.handle(.completion, config: config, at: 0) == true)
        #expect(p.handle(.silence, config: config, at: 1) == false)
    }

    @Test func mockOutputRecordsLevels() throws {
        let out = MockChimeOutput()
        try out.set(active: true)
        try out.set(active: false)
        #expect(out.levels == [true, false])
    }
}
