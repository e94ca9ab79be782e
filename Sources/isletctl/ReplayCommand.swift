import IsletDisplay
import IsletFrame
import IsletRender
import IsletSystem

/// `isletctl replay FILE --controller C --size WxH [--col-offset N] -o OUT.pbm|OUT.png`
public enum ReplayCommand {
    public static let usage = """
        usage: isletctl replay FILE --controller C --size WxH [--col-offset N] -o OUT.pbm|OUT.png
          FILE           a capture written by the mock bus (docs/DISPLAY.md, "Capture format")
          --controller   \(ControllerKind.allCases.map(\.rawValue).joined(separator: ", "))
          --size         one of the table's sizes for that controller, e.g. 128x32
          --col-offset   RAM column of the leftmost visible pixel (default: the table's)
          -o             the image a person would see: .pbm, .png, or - for PBM on stdout
        """

    struct Options {
        var file: String
        var model: PanelModel
        var output: String
    }

    enum ParseOutcome {
        case ok(Options)
        case bad(String)
    }

    static func parse(_ arguments: [String]) -> ParseOutcome {
        var args = arguments[...]
        if args.first == "replay" { args = args.dropFirst() }
        var file: String?, kind: ControllerKind?, size: PanelSize?, offset: Int?, output: String?
        while let a = args.popFirst() {
            switch a {
            case "--controller", "--size", "--col-offset", "-o", "--output":
                guard let v = args.popFirst() else { return .bad("\(a) needs a value") }
                switch a {
                case "--controller":
                    guard let k = ControllerKind(rawValue: v.lowercased()) else { return .bad("unknown controller `\(v)`") }
                    kind = k
                case "--size":
                    guard let s = PanelSize(parsing: v) else { return .bad("--size must be \(PanelSize.syntax) (got `\(v)`)") }
                    size = s
                case "--col-offset":
                    guard let n = Int(v), n >= 0, n < 256 else { return .bad("column offset `\(v)` is not a number 0–255") }
                    offset = n
                default:
                    output = v
                }
            default:
                if a.hasPrefix("-") && a != "-" { return .bad("unknown option `\(a)`") }
                if file != nil { return .bad("more than one capture file given") }
                file = a
            }
        }
        guard let file else { return .bad("no capture file given") }
        guard let kind else { return .bad("--controller is required") }
        guard let size else { return .bad("--size is required") }
        guard let output else { return .bad("-o is required") }
        guard var model = PanelModel.find(kind, width: size.width, height: size.height) else {
            let sizes = PanelModel.all.filter { $0.controller.kind == kind }.map { "\($0.width)x\($0.height)" }
            return .bad("no \(kind) panel of \(size); known sizes: \(sizes.joined(separator: ", "))")
        }
        if let offset { model = model.withColumnOffset(offset) }
        guard model.isConsistent else {
            if model.controller.comAlongColumns {
                return .bad("the \(kind) has no column offset (its RAM columns are COM lines): leave --col-offset out")
            }
            return .bad("column offset \(model.columnOffset) puts a \(model.width)-wide panel past the \(model.controller.ramColumns) RAM columns")
        }
        return .ok(Options(file: file, model: model, output: output))
    }

    /// Runs the subcommand; returns the exit status (0, 64 usage, 65 malformed capture, 66 unreadable
    /// input, 73 unwritable output).
    public static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch parse(arguments) {
        case .bad(let why):
            printError("isletctl replay: \(why)\n\(usage)")
            return 64
        case .ok(let o):
            options = o
        }
        let result: ReplayResult
        do {
            result = try Replay.run(file: options.file, model: options.model)
        } catch {
            printError("isletctl replay: \(error)")
            return error.line > 0 ? 65 : 66
        }
        do {
            try ImageFile.write(result.image, to: options.output, scale: 1)
        } catch {
            printError("isletctl replay: \(error)")
            return 73
        }
        let secs = Double(result.durationNanoseconds) / 1e9
        var summary = "\(result.transactions) transactions, \(result.bytes) bytes over \(format(secs)) s"
        if let bps = result.bytesPerSecond, let tps = result.transactionsPerSecond {
            summary += ": \(format(bps)) bytes/s, \(format(tps)) transactions/s"
        } else {
            summary += ": rates need two distinct timestamps"
        }
        // With the image going to stdout, the summary goes to stderr.
        if options.output == "-" { printError(summary) } else { print(summary) }
        for p in result.problems { printError("isletctl replay: \(options.file): \(p)") }
        return result.problems.isEmpty ? 0 : 65
    }

    private static func format(_ v: Double) -> String {
        let scaled = (v * 10).rounded() / 10
        return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }

    private static func printError(_ s: String) { StandardStream.error.writeLine(s) }
}
