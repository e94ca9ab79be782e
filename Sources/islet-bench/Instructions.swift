import IsletSystem
import IsletFrame
import IsletCore
import IsletRender
import IsletDisplay

/// Instruction counts per tick from valgrind's callgrind: a figure that does not move with the
/// load of a shared machine. islet-bench runs itself (`loop render|flush --passes N`) under
/// callgrind twice, with 1 and with 3 passes over the ticks after the same warm-up, and divides
/// the difference of the two totals by the ticks of 2 passes, so start-up, font loading and the
/// warm-up cancel out.
enum Instructions {
    static func perTick(_ what: String, scratch: String) -> Figure {
        let candidates: [String] = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"]
        let valgrind = candidates.first { FileSystem.isExecutable($0) }
        guard let vg = valgrind else { return .missing("needs valgrind (Debian package valgrind)") }
        guard let me = FileSystem.linkTarget("/proc/self/exe") else { return .missing("cannot find our own executable") }
        var totals: [Int] = []
        for passes in [1, 3] {
            guard let out = Processes.run(vg, ["--tool=callgrind", "--callgrind-out-file=/dev/null",
                                               me, "loop", what, "--passes", String(passes)], scratch: scratch),
                  out.status == 0, let total = collected(out.output) else {
                return .missing("callgrind run of islet-bench loop \(what) failed")
            }
            totals.append(total)
        }
        let ticks = Double(2 * (what == "render" ? Countdown.seconds + 1 : Countdown.seconds))
        return .value(Double(totals[1] - totals[0]) / ticks)
    }

    /// callgrind's closing line `==PID== Collected : N`.
    private static func collected(_ text: String) -> Int? {
        for line in text.split(separator: "\n") {
            guard let rest = line.after("Collected :") else { continue }
            return Int(rest.filter { $0 != " " })
        }
        return nil
    }

    /// The measured loop itself: warm-up, then `passes` passes (no clocks, no output).
    static func loop(_ what: String, passes: Int) -> Int32 {
        guard let renderer = try? Renderer() else { return 1 }
        let countdown = Countdown()
        var frame = Bitmap(width: 128, height: 32)
        switch what {
        case "render":
            for _ in 0...passes {
                for s in countdown.scenes { renderer.render(s.activities, presentation: .compact, now: s.now, into: &frame) }
            }
        case "flush":
            let frames = countdown.frames(renderer, size: .w128h32, presentation: .compact)
            guard let model = PanelModel.find(.ssd1306, width: 128, height: 32) else { return 1 }
            var driver = PanelDriver(bus: CountingBus(.plainI2C), panel: model)
            do {
                _ = try driver.initialize()
                for _ in 0...passes {
                    _ = try driver.flush(frames[0])
                    for f in frames.dropFirst() { _ = try driver.flush(f) }
                }
            } catch { return 1 }
        default:
            return 64
        }
        return 0
    }
}
