import IsletSystem
import IsletCore
import IsletFrame

/// Writes bench.json and the table people read. JSON by hand: flat keys in the order,
/// null for a missing figure, and the reasons under `missing`.
enum Report {
    static func json(_ r: Results, date: String) -> String {
        var lines: [String] = []
        for key in Key.allCases {
            let v: String = r[key].number.map(number) ?? "null"
            lines.append("  \(quote(key.rawValue)): \(v)")
        }
        let missing = Key.allCases.compactMap { key -> String? in
            if case .missing(let why) = r[key] { return "    \(quote(key.rawValue)): \(quote(why))" }
            return nil
        }
        lines.append("  \"missing\": {" + (missing.isEmpty ? "}" : "\n" + missing.joined(separator: ",\n") + "\n  }"))
        var meta = ["    \"date\": \(quote(date))"]
        meta += r.notes.map { "    \(quote($0.0)): \(quote($0.1))" }
        lines.append("  \"meta\": {\n" + meta.joined(separator: ",\n") + "\n  }")
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    static func table(_ r: Results, date: String) -> String {
        var out = "islet-bench  \(date)\n"
        let w = Key.allCases.map(\.label.count).max() ?? 40
        for key in Key.allCases {
            let label = key.label + String(repeating: " ", count: w - key.label.count)
            let value: String
            switch r[key] {
            case .value(let v): value = "\(pretty(v)) \(key.unit)"
            case .missing(let why): value = "n/a (\(why))"
            }
            out += "  \(label)  \(value)\n"
        }
        return out
    }

    /// A JSON number: integers without a fraction, others with up to 3 decimals.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(Double(Int64((v * 1000).rounded())) / 1000)
    }

    static func pretty(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        let digits = abs(v) >= 100 ? 10.0 : abs(v) >= 1 ? 100.0 : 1000.0
        return String((v * digits).rounded() / digits)
    }

    static func quote(_ s: String) -> String { Quoted.literal(s, .json) }

    /// Writes a whole file; returns an error text naming the path and errno, or nil.
    static func write(_ text: String, to path: String) -> String? {
        do { try FileSystem.writeFile(path, Array(text.utf8), permissions: 0o644) } catch {
            return "cannot write \(path): \(error.errno)"
        }
        return nil
    }

    static func today() -> String { ISO8601.format(Instant(milliseconds: Clocks.wallNs() / 1_000_000)) }
}

/// Writes a line to standard error.
func eprint(_ s: String) { StandardStream.error.writeLine(s) }
