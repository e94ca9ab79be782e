import IsletFrame

/// Contact sheets for review (`make gallery`): every presentation × state per panel size, and
/// the labelled presentations in every language. Lit pixels are white; each frame has a thin
/// outline one pixel outside it so a dark frame still shows its extent.
public enum Gallery {
    /// The states of the per-size sheets, as render requests (one row each).
    public static let states: [(String, RenderCommand.Request)] = {
        func req(_ f: (inout RenderCommand.Request) -> Void) -> RenderCommand.Request {
            var r = RenderCommand.Request()
            r.duration = 1200
            r.remaining = 754
            r.cycle = 2
            r.cycles = 3
            f(&r)
            return r
        }
        return [
            ("running", req { _ in }),
            ("paused", req { $0.state = .paused }),
            ("cycle end", req { $0.state = .cycleEnd }),
            ("complete", req { $0.state = .complete; $0.cycle = 3 }),
            ("stale", req { $0.stale = true }),
            ("stopwatch", req { $0.stopwatch = true; $0.duration = nil; $0.remaining = nil; $0.cycle = 1; $0.cycles = 1; $0.elapsed = 3725 }),
            ("sw paused", req { $0.stopwatch = true; $0.state = .paused; $0.duration = nil; $0.remaining = nil; $0.cycle = 1; $0.cycles = 1; $0.elapsed = 95 }),
            ("until", req { $0.until = true; $0.remaining = 754; $0.progress = 40; $0.text = "Rinsing"; $0.title = "Laundry"; $0.icon = "laundry" }),
            ("until %", req { $0.until = true; $0.remaining = nil; $0.progress = 65; $0.text = "Drying"; $0.title = "Dishes"; $0.icon = "dishwasher" }),
            ("until stale", req { $0.until = true; $0.remaining = 300; $0.text = "Baking"; $0.title = "Oven"; $0.icon = "oven"; $0.stale = true }),
            ("until done", req { $0.until = true; $0.state = .complete; $0.text = "Done"; $0.title = "Laundry"; $0.icon = "laundry" }),
            ("idle", req { $0.state = .idle }),
        ]
    }()

    /// Builds one sheet: a header row of column names, then one row per entry.
    public static func sheet(renderer: Renderer, size: PanelSize, columns: [String],
                             rows: [(String, [RenderCommand.Request?])], title: String) -> Bitmap {
        let labelW = 78, header = 30, gap = 10
        let cellW = max(size.width + 4, 6 * 12) + gap, cellH = size.height + 4 + gap
        let w = labelW + cellW * columns.count + gap
        let h = header + cellH * rows.count + gap
        var sheet = Bitmap(width: w, height: h)
        renderer.drawLabel(title, x: 4, y: 2, into: &sheet)
        for (c, name) in columns.enumerated() {
            renderer.drawLabel(name, x: labelW + c * cellW, y: 16, into: &sheet)
        }
        for (r, row) in rows.enumerated() {
            let y0 = header + r * cellH + 2
            renderer.drawLabel(row.0, x: 4, y: y0 + size.height / 2 - 8, into: &sheet)
            for (c, req) in row.1.enumerated() {
                guard let req else { continue }
                var q = req
                q.size = size
                let frame = RenderCommand.render(q, with: renderer)
                let x0 = labelW + c * cellW + 2
                paste(frame, into: &sheet, x: x0, y: y0)
                outline(&sheet, x: x0 - 2, y: y0 - 2, w: size.width + 4, h: size.height + 4)
            }
        }
        return sheet
    }

    /// Writes every sheet into `directory`; returns the paths written.
    public static func writeAll(to directory: String, renderer: Renderer) throws(ImageFile.WriteError) -> [String] {
        var written: [String] = []
        let presentations = Presentation.allCases
        for size in PanelSize.all {
            let rows: [(String, [RenderCommand.Request?])] = states.map { name, base in
                (name, presentations.map { p in var q = base; q.presentation = p; return q })
            }
            let b = sheet(renderer: renderer, size: size, columns: presentations.map(\.rawValue),
                          rows: rows, title: "Islet \(size): presentations x states")
            let path = directory + "/sheet-\(size).png"
            try ImageFile.write(b, to: path, scale: size.width * 4 >= 256 ? 2 : 3)
            written.append(path)
        }
        for size in [PanelSize.w128h64, .w128h128, .w64h128] {
            let cols: [(String, Presentation, RenderCommand.Request.State)] = [
                ("lock run", .lockscreen, .running), ("lock paused", .lockscreen, .paused),
                ("lock c-end", .lockscreen, .cycleEnd), ("lock done", .lockscreen, .complete),
                ("expanded", .expanded, .running),
            ]
            let rows: [(String, [RenderCommand.Request?])] = Localization.languages.map { lang in
                (lang, cols.map { _, p, s in
                    var q = states[0].1
                    q.language = lang
                    q.presentation = p
                    q.state = s
                    if s == .complete { q.cycle = 3 }
                    return q
                })
            }
            let b = sheet(renderer: renderer, size: size, columns: cols.map(\.0), rows: rows,
                          title: "Islet \(size): labelled presentations x languages")
            let path = directory + "/languages-\(size).png"
            try ImageFile.write(b, to: path, scale: 2)
            written.append(path)
        }
        try ImageFile.write(iconSheet(renderer: renderer), to: directory + "/icons.png", scale: 3)
        written.append(directory + "/icons.png")
        try ImageFile.write(iconPanels(renderer: renderer), to: directory + "/icons-panels.png", scale: 2)
        written.append(directory + "/icons-panels.png")
        // The picture for the README: the pill in its compact presentation.
        var pill = states[0].1
        pill.size = .w128h32
        let frame = RenderCommand.render(pill, with: renderer)
        var framed = Bitmap(width: 136, height: 40)
        paste(frame, into: &framed, x: 4, y: 4)
        outline(&framed, x: 2, y: 2, w: 132, h: 36)
        try ImageFile.write(framed, to: directory + "/pill.png", scale: 4)
        written.append(directory + "/pill.png")
        return written
    }

    static func paste(_ src: Bitmap, into dst: inout Bitmap, x: Int, y: Int) {
        for sy in 0..<src.height {
            for sx in 0..<src.width where src[sx, sy] { dst[x + sx, y + sy] = true }
        }
    }

    /// A dotted rectangle, so it never reads as part of a frame.
    static func outline(_ b: inout Bitmap, x: Int, y: Int, w: Int, h: Int) {
        for i in 0..<w where i % 2 == 0 { b[x + i, y] = true; b[x + i, y + h - 1] = true }
        for j in 0..<h where j % 2 == 0 { b[x, y + j] = true; b[x + w - 1, y + j] = true }
    }
}
