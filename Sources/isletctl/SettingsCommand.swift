import IsletSystem
import IsletProtocol

/// `isletctl settings [get | set KEY VALUE | reset KEY | export FILE [--activities] | import FILE] [--json]`:
/// the page's settings from a shell, through the same ops as the page (README "The control
/// socket"). The config file stays the administrator's; these edit the overlay in the state
/// directory (settings.json).
enum SettingsCommand {
    static let usage = """
    usage: isletctl settings [get] [--json]          every setting the page may change: value, source
           isletctl settings set KEY VALUE           e.g. set session.minutes 25, set display.night 22:30-07:00
           isletctl settings reset KEY               back to the config file's value (or the default)
           isletctl settings export FILE [--activities]
                                                     write a backup (JSON; - for standard output);
                                                     --activities: the running activities too
           isletctl settings import FILE             restore a backup (- for standard input): all of it or nothing
                                                     (at most \(SettingsDocument.maximumBackupBytes) bytes);
                                                     a backup's activities replace the running ones
    KEY is one of: \(SettingsDocument.editableKeys.joined(separator: ", ")).
    """

    struct Parsed: Equatable {
        var request: ControlRequest
        /// export's destination, import's source.
        var file: String?
        var json = false
    }

    static func parse(_ args: [String]) throws(CtlMain.Usage) -> Parsed {
        var words = args
        var json = false
        if let i = words.firstIndex(of: "--json") { json = true; words.remove(at: i) }
        var activities = false
        if let i = words.firstIndex(of: "--activities") { activities = true; words.remove(at: i) }
        if let bad = words.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw CtlMain.Usage(message: "settings does not take \(bad)\n\(usage)")
        }
        func key(_ k: String) throws(CtlMain.Usage) -> String {
            guard SettingsDocument.editableKeys.contains(k) else {
                throw CtlMain.Usage(message: "\"\(k)\" is not a setting the page may change; accepted: \(SettingsDocument.editableKeys.joined(separator: ", "))")
            }
            return k
        }
        let verb = words.first ?? "get"
        let rest = Array(words.dropFirst())
        func want(_ n: Int, _ form: String) throws(CtlMain.Usage) {
            guard rest.count == n else { throw CtlMain.Usage(message: "settings \(verb) takes \(form)\n\(usage)") }
        }
        if activities, words.first != "export" { throw CtlMain.Usage(message: "--activities is export's alone\n\(usage)") }
        var p = Parsed(request: ControlRequest(op: .settings), json: json)
        switch verb {
        case "get": try want(0, "nothing")
        case "set":
            try want(2, "KEY VALUE")
            p.request = ControlRequest(op: .settingsSet)
            p.request.settings = SettingsRequest(key: try key(rest[0]), value: rest[1])
        case "reset":
            try want(1, "KEY")
            p.request = ControlRequest(op: .settingsReset)
            p.request.settings = SettingsRequest(key: try key(rest[0]))
        case "export":
            try want(1, "FILE")
            p.request = ControlRequest(op: .settingsExport)
            p.request.settings.activities = activities
            p.file = rest[0]
        case "import":
            try want(1, "FILE")
            p.request = ControlRequest(op: .settingsImport)
            p.file = rest[0]
        default: throw CtlMain.Usage(message: "unknown settings command \"\(verb)\"\n\(usage)")
        }
        return p
    }

    /// A backup file's text (`-`: standard input), bounded and checked before it goes to the
    /// daemon (which checks it again).
    static func readBackup(_ path: String) -> Result<String, CtlMain.Usage> {
        let bound = SettingsDocument.maximumBackupBytes
        let name = path == "-" ? "standard input" : path
        let read: Result<[UInt8], SystemError>
        if path == "-" {
            read = FileSystem.readStandardInput(limit: bound)
        } else {
            // A device, FIFO or directory is refused by its kind before it is opened for reading.
            if let st = try? FileSystem.status(path), st.kind != .regular {
                return .failure(CtlMain.Usage(message: "\(path) is not a regular file"))
            }
            read = FileSystem.readFile(path, limit: bound + 1)
        }
        switch read {
        case .failure(let e) where e.errno == .fileTooLarge:
            return .failure(CtlMain.Usage(message: "\(name) is larger than \(bound) bytes, the most a backup can be"))
        case .failure(let e): return .failure(CtlMain.Usage(message: "cannot read \(name): \(e.errno)"))
        case .success(let bytes):
            guard bytes.count <= bound else {
                return .failure(CtlMain.Usage(message: "\(name) is larger than \(bound) bytes, the most a backup can be"))
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(CtlMain.Usage(message: "\(name) is not UTF-8 text")) }
            return .success(text)
        }
    }

    /// The backup as sent: compacted when it parses as JSON (its whitespace would count twice
    /// against the request's bound, a newline being `\n` in the request), as is when it does
    /// not, for the daemon to name its fault.
    static func compacted(_ text: String) -> String {
        guard let value = try? StrictJSON.parse(Array(text.utf8)) else { return text }
        return String(decoding: JSONLines.encode(value).dropLast(), as: UTF8.self)
    }

    /// The import's request, or why a restore cannot take this backup (in words about the
    /// backup, not the socket's framing).
    static func importRequest(_ text: String, source: String) -> Result<ControlRequest, CtlMain.Usage> {
        var r = ControlRequest(op: .settingsImport)
        r.settings.backup = compacted(text)
        let line = r.encodedLine().count
        guard line <= ControlRequest.maximumLineBytes else {
            let sent = r.settings.backup?.utf8.count ?? 0
            return .failure(CtlMain.Usage(message: "\(source): this backup is \(sent) bytes without its whitespace, \(line) as a restore request; "
                + "a restore takes at most \(ControlRequest.maximumLineBytes)"))
        }
        return .success(r)
    }

    static func run(_ args: [String], socket: String, timeoutMs: Int32) -> Int32 {
        if args.contains("--help") || args.contains("-h") { print(usage); return 0 }
        var p: Parsed
        do { p = try parse(args) } catch { return CtlMain.usageError(error.message) }
        if p.request.op == .settingsImport, let file = p.file {
            switch readBackup(file) {
            case .success(let text):
                switch importRequest(text, source: file == "-" ? "standard input" : file) {
                case .success(let r): p.request = r
                case .failure(let e): CtlMain.printError("isletctl: \(e.message)"); return 65
                }
            case .failure(let e): CtlMain.printError("isletctl: \(e.message)"); return 66
            }
        }
        do {
            let client = try ControlClient(path: socket)
            let (raw, response) = try client.request(p.request, timeoutMs: timeoutMs)
            guard response.ok, let report = response.settings else {
                let e = response.error
                CtlMain.printError("isletctl: \(e?.message ?? "refused") (\(e?.code ?? "error"))")
                if p.json { print(String(decoding: raw, as: UTF8.self)) }
                return 1
            }
            if p.request.op == .settingsExport, let file = p.file {
                let bytes = Array((report.backup ?? "").utf8)
                if file == "-" { CtlMain.writeOut(report.backup ?? "") } else {
                    // Atomic and 0600: a link at FILE is replaced, an old file's mode not kept.
                    do { try FileSystem.replaceFile(file, bytes, permissions: 0o600) } catch {
                        CtlMain.printError("isletctl: cannot write \(file): \(error.errno)")
                        return 73
                    }
                    let n = report.entries.filter { $0.source == "page" }.count
                    print("wrote the backup of \(n) page settings" + (p.request.settings.activities ? " and the running activities" : "") + " to \(file)")
                }
                return 0
            }
            if p.json { print(String(decoding: raw, as: UTF8.self)) } else { print(describe(report)) }
            return 0
        } catch {
            CtlMain.printError("isletctl: \(error)")
            switch error {
            case .unavailable: return 69
            case .protocolViolation: return 1
            case .timedOut: return 75
            }
        }
    }

    /// One line a key: its value, where it comes from, and the file's beneath a page value.
    static func describe(_ r: SettingsReport) -> String {
        let width = r.entries.map(\.key.count).max() ?? 0
        var lines = r.entries.map { e in
            let pad = String(repeating: " ", count: width - e.key.count)
            return "\(e.key)\(pad)  \(e.value)  (\(e.source)" + (e.source == "page" ? "; file: \(e.fileValue))" : ")")
        }
        lines.append("page settings are kept in \(r.path)" + (r.writeError.map { "; the last write failed: \($0)" } ?? ""))
        lines.append("only the config file sets: \(r.fileOnly.joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }
}
