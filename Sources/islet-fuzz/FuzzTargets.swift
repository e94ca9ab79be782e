// `make fuzz`: libFuzzer targets for what isletd reads from outside — a control request line,
// a config file, the state file, a bus capture. Built with `-sanitize=fuzzer -DFUZZING`,
// libFuzzer drives `LLVMFuzzerTestOneInput`; built plainly, this is a replayer that runs every
// file of a corpus through the same target (what `make test` could not do by chance).
// A target "fails" only by trapping or by breaking a property checked here.
import IsletProtocol
import IsletCore
import IsletDisplay
import IsletConfig
#if canImport(Glibc)
import Glibc
#endif

/// A broken property: say which, and abort so libFuzzer keeps the input as a crash.
func fail(_ message: String) -> Never {
    say("islet-fuzz: \(message)")
    abort()
}

/// A line on standard error (write(2): Swift 6 calls the C library's `stderr` unsafe).
func say(_ s: String) {
    let bytes = Array((s + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

enum FuzzTarget: String, CaseIterable {
    case protocolLine = "protocol", config, state, capture
    // The network's inputs (NetworkTargets.swift).
    case sync, beacon, command, topics

    func run(_ bytes: [UInt8]) {
        switch self {
        case .protocolLine:
            // A request that parses must encode to a line that parses back to the same request.
            if let r = try? ControlRequest.parse(bytes) {
                let again = try? ControlRequest.parse(Array(r.encodedLine().dropLast()))
                if again != r { fail("protocol: \(r) did not survive encode and parse") }
                RestorePath.request(r)
            }
        case .config:
            let text = String(decoding: bytes, as: UTF8.self)
            if let c = try? DaemonConfig().parsing(text, file: "fuzz.conf") { _ = try? c.validated(origin: "fuzz.conf") }
        case .state:
            RestorePath.run(bytes)
        case .capture:
            let text = String(decoding: bytes, as: UTF8.self)
            if let records = try? CaptureFormat.parse(text, file: "fuzz.capture"), let model = PanelModel.find(.ssd1306, width: 128, height: 64) {
                _ = Replay.run(records, model: model)
            }
        case .sync: NetworkTargets.sync(bytes)
        case .beacon: NetworkTargets.beacon(bytes)
        case .command: NetworkTargets.command(bytes)
        case .topics: NetworkTargets.topics(bytes)
        }
    }

    static var selected: FuzzTarget {
        let name = getenv("ISLET_FUZZ_TARGET").map { String(cString: $0) } ?? "protocol"
        return FuzzTarget(rawValue: name) ?? .protocolLine
    }
}

#if FUZZING
// libFuzzer without its own main (libclang_rt.fuzzer_no_main): this main hands it the
// command line, so the normal build's main and the fuzzer's never meet.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@main struct Fuzzer {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let target = FuzzTarget.selected
        say("islet-fuzz: target \(target.rawValue) (ISLET_FUZZ_TARGET)")
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            FuzzTarget.selected.run(bytes)
            return 0
        })
    }
}
#else
/// `islet-fuzz TARGET FILE|DIR...`: runs every input through TARGET; prints the count.
@main struct Replayer {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let first = args.first, let target = FuzzTarget(rawValue: first) else {
            print("usage: islet-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE|DIR...")
            exit(64)
        }
        var count = 0
        for path in args.dropFirst() {
            for file in files(path) {
                guard let f = fopen(file, "rb") else { continue }
                var bytes: [UInt8] = []
                var buf = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = fread(&buf, 1, buf.count, f)
                    if n <= 0 { break }
                    bytes += buf[0..<n]
                }
                fclose(f)
                target.run(bytes)
                count += 1
            }
        }
        print("islet-fuzz: \(target.rawValue): \(count) inputs, no failure")
    }

    static func files(_ path: String) -> [String] {
        guard let d = opendir(path) else { return [path] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { out.append(path + "/" + name) }
        }
        return out.sorted()
    }
}
#endif
