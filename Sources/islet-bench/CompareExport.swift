import IsletSystem
import IsletFrame
import IsletCore
import IsletRender
import IsletDisplay

/// `islet-bench export`: renders the 10-minute countdown on 128×32 compact, writes its frames
/// (page-packed, one after another) for bench/luma_compare.py, and measures our side on the
/// same frames: bytes and transactions per tick and the CPU time of frame → bus bytes (the
/// driver's flush onto a bus that only counts, render excluded), for both transports.
struct CompareExport {
    var quick = false

    func run(frames path: String, json: String) -> Int32 {
        let text: String
        switch measure(framesPath: path) {
        case .success(let t): text = t
        case .failure(let e):
            text = "{\n  \"available\": false,\n  \"missing\": \(Report.quote(e.text))\n}\n"
            print("islet-bench export: \(e.text)")
        }
        if let err = Report.write(text, to: json) {
            eprint("islet-bench: \(err)")
            return 73
        }
        return 0
    }

    private func measure(framesPath: String) -> Result<String, BusRunError> {
        let renderer: Renderer
        do { renderer = try Renderer() } catch { return .failure(BusRunError(text: "renderer fonts: \(error)")) }
        let size = PanelSize.w128h32
        let countdown = Countdown()
        guard countdown.isRunning else { return .failure(BusRunError(text: "the core refused to start the 10-minute countdown")) }
        let frames = countdown.frames(renderer, size: size, presentation: .compact)
        guard let model = PanelModel.find(.ssd1306, width: size.width, height: size.height) else {
            return .failure(BusRunError(text: "no SSD1306 128x32 row in the controller table"))
        }
        var blob: [UInt8] = []
        for f in frames { blob += f.bytes }
        do { try FileSystem.writeFile(framesPath, blob, permissions: 0o644) } catch {
            return .failure(BusRunError(text: "cannot write \(framesPath): \(error.errno)"))
        }
        var sides: [String] = []
        let transports: [(String, I2CCapabilities, I2CTransport)] = [("i2c", .plainI2C, .plainI2C), ("smbus", .smbusBlock, .smbusBlock)]
        for (name, caps, transport) in transports {
            switch side(frames, size, model, caps, transport) {
            case .success(let s): sides.append("  \(Report.quote(name)): \(s)")
            case .failure(let e): return .failure(e)
            }
        }
        let floor = Floor.figures(frames)
        print("islet-bench export: \(frames.count) frames of \(size) compact written to \(framesPath)")
        return .success("""
        {
          "available": true,
          "width": \(size.width),
          "height": \(size.height),
          "frames": \(Report.quote(framesPath)),
          "ticks": \(frames.count - 1),
          "floor_bytes_per_tick": \(Report.number(floor.floorBytesPerTick)),
          "changed_bytes_per_tick": \(Report.number(floor.changedBytesPerTick)),
        \(sides.joined(separator: ",\n"))
        }

        """)
    }

    /// One transport: bytes from the first pass, CPU time (thread clock) per flush as the lowest
    /// per-pass median over several passes.
    private func side(_ frames: [Bitmap], _ size: PanelSize, _ model: PanelModel, _ caps: I2CCapabilities,
                      _ transport: I2CTransport) -> Result<String, BusRunError> {
        let bus = CountingBus(caps)
        var driver = PanelDriver(bus: bus, panel: model)
        // The CPU figure is the lowest of the passes' medians: the pass the other tenants of a
        // shared machine disturbed least (luma_compare.py takes luma.oled's the same way).
        var passMedians: [Double] = []
        var samples = 0
        // Bytes and transactions as the counting bus saw them in the first pass.
        var full = (transactions: 0, bytes: 0), ticks = (transactions: 0, bytes: 0)
        do {
            _ = try driver.initialize()
            for rep in 0..<(quick ? 2 : 10) {
                let r0 = bus.reading
                _ = try driver.flush(frames[0])
                let r1 = bus.reading
                var pass: [Double] = []
                pass.reserveCapacity(frames.count - 1)
                for f in frames.dropFirst() {
                    let t = Clocks.threadCPUNs()
                    _ = try driver.flush(f)
                    pass.append(Double(Clocks.threadCPUNs() - t))
                }
                if let m = Stats.median(pass) { passMedians.append(m) }
                samples += pass.count
                let r2 = bus.reading
                if rep == 0 {
                    full = (r1.transactions - r0.transactions, r1.bytes - r0.bytes)
                    ticks = (r2.transactions - r1.transactions, r2.bytes - r1.bytes)
                }
            }
        } catch {
            return .failure(BusRunError(text: "flush failed: \(error)"))
        }
        // The same frames onto the emulated panel: it must end up showing the last frame, from
        // exactly the bytes counted here, as luma_compare.py checks luma.oled's side.
        switch InProcessBench(quick: true).busRun(frames, size: size, transport: transport) {
        case .failure(let e): return .failure(e)
        case .success(let run):
            guard run.ticks.bytes == ticks.bytes, run.ticks.transactions == ticks.transactions else {
                return .failure(BusRunError(text: "the counting bus saw \(ticks.bytes) bytes, the emulated panel's run \(run.ticks.bytes)"))
            }
        }
        let n = Double(frames.count - 1)
        guard let cpu = passMedians.min() else { return .failure(BusRunError(text: "no CPU samples")) }
        return .success("{\"bytes_per_tick\": \(Report.number(Double(ticks.bytes) / n)), "
            + "\"transactions_per_tick\": \(Report.number(Double(ticks.transactions) / n)), "
            + "\"cpu_ns_per_tick\": \(Report.number(cpu)), \"cpu_samples\": \(samples), "
            + "\"cpu_passes\": \(passMedians.count), "
            + "\"full_frame_bytes\": \(full.bytes), \"full_frame_transactions\": \(full.transactions)}")
    }
}
