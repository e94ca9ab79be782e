// `make gallery`: writes the review contact sheets (docs/gallery by default).
// `islet-gallery --time [PRESENTATION [WxH [TICKS]]]` prints a rough cost of one tick (the
// benchmarks measure properly). TICKS (default 100,000) lets an outside allocation counter compare
// 1 tick with many: a steady-state tick must add no allocation.
import IsletFrame
import IsletCore
import IsletDisplay
import IsletRender
import IsletSystem

let args = CommandLine.arguments
do {
    let renderer = try Renderer()
    if args.count > 1, args[1] == "--time" {
        let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(1200), cycles: 3))
        let t0 = Instant(milliseconds: 1_800_000_000_000)
        let a = try TimerMachine.apply(.start(attrs), to: nil, now: t0).activity.map { [$0] } ?? []
        let size = args.count > 3 ? PanelSize(parsing: args[3]) ?? .w128h32 : .w128h32
        var frame = Bitmap(width: size.width, height: size.height)
        let presentation = args.count > 2 ? Presentation(rawValue: args[2]) ?? .compact : .compact
        // Warm the caches (first glyphs, first labels), then tick once a second of panel time.
        for s in 0..<100 { renderer.render(a, presentation: presentation, now: t0 + .seconds(s), into: &frame) }
        let n = args.count > 4 ? max(1, Int(args[4]) ?? 100_000) : 100_000
        let clock = ContinuousClock()
        let start = clock.now
        for s in 0..<n { renderer.render(a, presentation: presentation, now: t0 + .milliseconds(Int64(s) * 1000 % 1_100_000), into: &frame) }
        let elapsed = clock.now - start
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        print("\(presentation.rawValue) \(size) tick: \(Int(ns / Double(n))) ns")
    } else {
        let directory = args.count > 1 ? args[1] : "docs/gallery"
        for path in try Gallery.writeAll(to: directory, renderer: renderer) { print("wrote \(path)") }
        print("wrote \(try Troubleshooting.write(to: directory, renderer: renderer))")
    }
} catch {
    print("islet-gallery: \(error)")
    ThisProcess.exit(1)
}
