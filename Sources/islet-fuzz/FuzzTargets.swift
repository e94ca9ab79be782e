// `make fuzz`: libFuzzer targets for what isletd reads from outside — a control request line,
// a config file, the state file, a bus capture. Built with `-sanitize=fuzzer -DFUZZING`,
// libFuzzer drives `LLVMFuzzerTestOneInput`; built plainly, this is a replayer that runs every
// file of a corpus through the same target (what `make test` could not do by chance).
// A target "fails" only by trapping or by breaking a property checked here.
import IsletDaemon
import IsletProtocol
import IsletCore
import IsletDisplay
import IsletConfig
import IsletSystem
import IsletStore

/// A broken property: say which, and abort so libFuzzer keeps the input as a crash.
func fail(_ message: String) -> Never {
    say("islet-fuzz: \(message)")
    Identity.abortProcess()
}

/// A line on standard error.
func say(_ s: String) { StandardStream.error.writeLine(s) }

enum FuzzTarget: String, CaseIterable {
    case protocolLine = "protocol", config, state, capture
    // The network's inputs (NetworkTargets.swift).
    case sync, beacon, command, topics
    // The web page's guard (WebTarget.swift).
    case web
    // A custom icon sent with a request (IconTarget.swift).
    case icon
    // The page's settings.json and a backup's upload (SettingsDocument, then the config's parser).
    case settings

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
            if let c = try? DaemonConfig(parts: PartRegistry.settings).parsing(text, file: "fuzz.conf") { _ = try? c.validated(origin: "fuzz.conf") }
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
        case .web: WebTarget.run(bytes)
        case .icon: IconTarget.run(bytes)
        case .settings:
            // What reads back must encode to what reads back the same, and go through the parser
            // (or be refused by it) without a trap.
            if let values = try? SettingsDocument.overlay(bytes) { Self.settings(values) }
            if let values = try? SettingsDocument.backup(bytes) { Self.settings(values) }
            // A backup's activities go through the state file's loader; what it takes must
            // encode and read back the same.
            if let list = try? SettingsDocument.readBackup(bytes).activities,
               let taken = try? BackupActivities.decode(list, now: Instant(milliseconds: 1_800_000_000_000)) {
                let again = (try? BackupActivities.encode(taken)).flatMap { try? BackupActivities.decode($0, now: Instant(milliseconds: 1_800_000_000_000)) }
                if again != taken { fail("settings: a backup's \(taken.count) activities did not survive encode and read") }
            }
        }
    }

    private static func settings(_ values: [String: String]) {
        let again = try? SettingsDocument.backup(SettingsDocument.encodeBackup(values))
        if again != values { fail("settings: \(values) did not survive encode and read") }
        _ = try? DaemonConfig(parts: PartRegistry.settings).applying(page: values)
    }

    static var selected: FuzzTarget {
        let name = Posix.environment("ISLET_FUZZ_TARGET") ?? "protocol"
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
        ThisProcess.exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
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
            ThisProcess.exit(64)
        }
        var count = 0
        for path in args.dropFirst() {
            for file in files(path) {
                // An input that cannot be read is skipped, not counted.
                guard case .success(let bytes) = FileSystem.readFile(file, limit: 1 << 30) else { continue }
                target.run(bytes)
                count += 1
            }
        }
        print("islet-fuzz: \(target.rawValue): \(count) inputs, no failure")
    }

    static func files(_ path: String) -> [String] {
        guard let names = try? FileSystem.directoryEntries(path) else { return [path] }
        return names.map { path + "/" + $0 }.sorted()
    }
}
#endif
