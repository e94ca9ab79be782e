import IsletDaemon

/// The figures measured inside this process on the library itself: render and flush cost, the
/// allocation count, and the bytes the driver puts on a counting bus over a whole countdown.
/// Each figure is its own function and reports what it needs when a piece has not landed yet.
struct InProcessBench {
    var quick = false

    func run(into r: inout Results) {
        r[.renderNsPerTick] = renderNsPerTick()
        r[.renderAllocsPerTick] = renderAllocsPerTick()
        r[.flushNsPerTick] = flushNsPerTick()
        busFigures(into: &r)
    }

    func renderNsPerTick() -> Figure { .missing("needs IsletRender's Renderer (issue 3)") }
    func renderAllocsPerTick() -> Figure { .missing("needs IsletRender's Renderer (issue 3)") }
    func flushNsPerTick() -> Figure { .missing("needs IsletDisplay's PanelDriver (issue 4)") }

    func busFigures(into r: inout Results) {
        for k in [Key.busBytesPerTick, .busBytesPerTickLockscreen128x64, .busBytesPerTickSMBus, .busBytesFullFrame,
                  .busTransactionsPerTick, .busUsPerTick400kHz, .busUsPerTick100kHz] {
            r[k] = .missing("needs IsletRender's Renderer and IsletDisplay's PanelDriver (issues 3, 4)")
        }
    }
}
