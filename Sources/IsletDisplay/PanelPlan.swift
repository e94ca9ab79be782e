import IsletFrame

/// How a flush reaches the panel: candidate plans built as real transactions and priced by
/// counting them, the addressing window, and the wire they are written to.
extension PanelDriver {
    // MARK: planning (every plan is built as real transactions and priced by counting them)

    /// One column/page window over the bounding box of all changes, written in one data stream;
    /// with `trimmed`, the stream stops at the last changed byte (the pointer is left inside).
    func planRectangle(_ runs: [[ClosedRange<Int>]], target: [UInt8], base: Int, limit: Int, trimmed: Bool = false)
        -> (wire: Wire, window: Window?, pointer: Pointer?) {
        var lo = Int.max, hi = Int.min, p0 = Int.max, p1 = Int.min
        for (p, r) in runs.enumerated() where !r.isEmpty {
            p0 = min(p0, p); p1 = max(p1, p)
            lo = min(lo, r[0].lowerBound); hi = max(hi, r[r.count - 1].upperBound)
        }
        var wire = Wire(limit: limit)
        let w = Window(c0: base + lo, c1: base + hi, p0: p0, p1: p1)
        var data: [UInt8] = []
        data.reserveCapacity((hi - lo + 1) * (p1 - p0 + 1))
        for p in p0...p1 {
            let end = trimmed && p == p1 ? runs[p1][runs[p1].count - 1].upperBound : hi
            data += target[(p * panel.width + lo)...(p * panel.width + end)]
        }
        PanelDriver.position(to: w, from: window, pointer: pointer, wire: &wire)
        wire.data(data)
        return (wire, w, advance(Pointer(column: w.c0, page: w.p0), in: w, by: data.count))
    }

    /// No addressing at all: the bytes from where the RAM pointer already is, onward through the
    /// current window (wrapping at its end, as horizontal addressing does, SSD1306 §10.1.3), up
    /// to the last changed byte. Only when every change lies inside that window; cheap when the
    /// same small region (the seconds' digits) changes tick after tick.
    func planFromPointer(_ runs: [[ClosedRange<Int>]], target: [UInt8], base: Int, limit: Int)
        -> (wire: Wire, window: Window?, pointer: Pointer?)? {
        guard let w = window, let ptr = pointer else { return nil }
        let cols = w.c1 - w.c0 + 1, rows = w.p1 - w.p0 + 1, n = cols * rows
        let start = (ptr.page - w.p0) * cols + (ptr.column - w.c0)
        guard start >= 0, start < n else { return nil }
        var length = 0
        for (p, pageRuns) in runs.enumerated() {
            for r in pageRuns {
                guard p >= w.p0, p <= w.p1, base + r.lowerBound >= w.c0, base + r.upperBound <= w.c1 else { return nil }
                // The run's last byte is the farthest of it from the pointer unless the run wraps
                // past it, which happens only when the pointer sits inside the run.
                let first = (p - w.p0) * cols + (base + r.lowerBound - w.c0)
                let last = first + r.count - 1
                let reach = start > first && start <= last ? n : (last - start + n) % n + 1
                length = max(length, reach)
            }
        }
        guard length > 0 else { return nil }
        var data: [UInt8] = []
        data.reserveCapacity(length)
        for k in 0..<length {
            let i = (start + k) % n
            let page = w.p0 + i / cols, column = w.c0 + i % cols - base
            data.append(target[page * panel.width + column])
        }
        var wire = Wire(limit: limit)
        wire.data(data)
        return (wire, w, advance(ptr, in: w, by: length))
    }

    /// Separate windows per page for each run, merging runs across gaps cheaper than a new window.
    func planWindowSpans(_ runs: [[ClosedRange<Int>]], target: [UInt8], base: Int, limit: Int, bands: Bool)
        -> (wire: Wire, window: Window?, pointer: Pointer?) {
        var wire = Wire(limit: limit)
        var win = window, ptr = pointer
        // A new span costs a column window (1 address + 1 control + 21h a b) and a data
        // transaction's address and control byte: merge gaps shorter than that.
        let merged = runs.map { merge($0, gap: 7) }
        var p = 0
        while p < merged.count {
            // With `bands`, consecutive pages changed over the same single column span share one
            // window, the pointer stepping from page to page by itself (§10.1.3 horizontal mode).
            var last = p
            if bands, merged[p].count == 1 {
                while last + 1 < merged.count, merged[last + 1] == merged[p] { last += 1 }
            }
            for span in merged[p] {
                let w = Window(c0: base + span.lowerBound, c1: base + span.upperBound, p0: p, p1: last)
                PanelDriver.position(to: w, from: win, pointer: ptr, wire: &wire)
                var bytes: [UInt8] = []
                for q in p...last {
                    bytes += target[(q * panel.width + span.lowerBound)...(q * panel.width + span.upperBound)]
                }
                wire.data(bytes)
                win = w
                ptr = advance(Pointer(column: w.c0, page: p), in: w, by: bytes.count)
            }
            p = last + 1
        }
        return (wire, win, ptr)
    }

    /// Page addressing (SH1106, SH1107): B0h+page and the column nibbles, skipping what is already set.
    func planPageSpans(_ runs: [[ClosedRange<Int>]], target: [UInt8], base: Int, limit: Int)
        -> (wire: Wire, window: Window?, pointer: Pointer?) {
        var wire = Wire(limit: limit)
        var ptr = pointer
        for (p, pageRuns) in runs.enumerated() {
            // A new span costs up to three commands plus two transactions' address and control bytes.
            for span in merge(pageRuns, gap: 6) {
                let col = base + span.lowerBound
                if ptr?.page != p { wire.command([Opcode.page | UInt8(p)]) }
                if ptr?.column != col {
                    if ptr.map({ $0.column & 0x0F }) != col & 0x0F { wire.command([Opcode.lowColumn | UInt8(col & 0x0F)]) }
                    if ptr.map({ $0.column >> 4 }) != col >> 4 { wire.command([Opcode.highColumn | UInt8(col >> 4)]) }
                }
                let bytes = Array(target[(p * panel.width + span.lowerBound)...(p * panel.width + span.upperBound)])
                wire.data(bytes)
                ptr = Pointer(column: col + bytes.count, page: p)
            }
        }
        return (wire, nil, ptr)
    }

    func merge(_ runs: [ClosedRange<Int>], gap: Int) -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        for r in runs {
            if let last = out.last, r.lowerBound - last.upperBound - 1 <= gap {
                out[out.count - 1] = last.lowerBound...r.upperBound
            } else {
                out.append(r)
            }
        }
        return out
    }

    /// Emits the 21h/22h commands needed so the next data byte lands at the window's start with the
    /// window's wrap, skipping those that would not change anything (21h also resets the column
    /// pointer, 22h the page pointer: SSD1306 §10.1.4, §10.1.5).
    static func position(to w: Window, from current: Window?, pointer: Pointer?, wire: inout Wire) {
        if current?.c0 != w.c0 || current?.c1 != w.c1 || pointer?.column != w.c0 {
            wire.command([Opcode.columnWindow, UInt8(w.c0), UInt8(w.c1)])
        }
        if current?.p0 != w.p0 || current?.p1 != w.p1 || pointer?.page != w.p0 {
            wire.command([Opcode.pageWindow, UInt8(w.p0), UInt8(w.p1)])
        }
    }

    func advance(_ p: Pointer, in w: Window, by n: Int) -> Pointer {
        let cols = w.c1 - w.c0 + 1, rows = w.p1 - w.p0 + 1
        let linear = ((p.page - w.p0) * cols + (p.column - w.c0) + n) % (cols * rows)
        return Pointer(column: w.c0 + linear % cols, page: w.p0 + linear / cols)
    }

    mutating func send(_ wire: Wire) throws(DisplayError) -> FlushStats {
        for t in wire.transactions {
            do {
                try bus.write(address: address, bytes: t)
            } catch {
                invalidate()
                throw .bus(error)
            }
        }
        return wire.stats
    }
}

/// Builds transactions the way they will go on the bus: consecutive commands share one command
/// transaction (control byte 00h), data goes in data transactions (40h), each cut to the bus limit
/// without splitting a command from its parameters.
struct Wire: Sendable {
    let limit: Int
    private(set) var transactions: [[UInt8]] = []
    private(set) var stats = FlushStats.zero
    private var open: Kind? = nil
    private enum Kind { case command, data }

    init(limit: Int) { self.limit = max(2, limit) }

    /// Bytes on the wire, address bytes included: what plans are compared by.
    var cost: Int { stats.bytes + stats.transactions }

    mutating func commands(_ list: [[UInt8]]) { for c in list { command(c) } }

    mutating func command(_ c: [UInt8]) {
        if open != .command || transactions[transactions.count - 1].count + c.count > limit {
            transactions.append([ControlByte.commands])
            open = .command
            stats.transactions += 1
            stats.bytes += 1
        }
        transactions[transactions.count - 1] += c
        stats.bytes += c.count
        stats.commandBytes += c.count
    }

    mutating func data(_ d: [UInt8]) {
        var i = 0
        while i < d.count {
            if open != .data || transactions[transactions.count - 1].count >= limit {
                transactions.append([ControlByte.data])
                open = .data
                stats.transactions += 1
                stats.bytes += 1
            }
            let room = limit - transactions[transactions.count - 1].count
            let n = min(room, d.count - i)
            transactions[transactions.count - 1] += d[i..<(i + n)]
            stats.bytes += n
            stats.dataBytes += n
            i += n
        }
    }
}
