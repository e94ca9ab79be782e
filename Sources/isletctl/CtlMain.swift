import IsletCore
import IsletFrame
import IsletSystem
import IsletProtocol
import IsletRender

/// The isletctl program. Exit: 0 success, 1 refused by the daemon, 64 bad usage, 65/66 a
/// backup to import too large / unreadable, 69 no daemon answers (or it went away during
/// watch), 73 an export not written, 75 no answer in time.
public enum CtlMain {
    public static let usage = """
    usage: isletctl [--socket PATH] [--timeout S] COMMAND [OPTIONS]
      start [--minutes M | --seconds S] [--cycles N] [--language CODE] [--title T] [--timer ID]
            [--stopwatch] [--cycle-end-seconds S] [--stale-after-seconds S] [--icon NAME]
            [--relevance 0-100]
                                 start a session (no duration: the daemon's default session)
      start --until HH:MM|+MIN|ISO-8601 [--progress P] [--text T] [--title T] [--icon NAME]
            [--timer ID] [--stale-after-seconds S]
                                 start a countdown to an instant someone else owns (kind until)
      update [--until WHEN] [--progress P|N%] [--text T] [--clear until|progress|text] [--alert]
             [--timer ID]        change an until activity's content (push-to-update)
      \(Verb.allCases.filter { $0.argument == .none }.map(\.rawValue).joined(separator: " | ")) [--timer ID]
      end [--dismissal immediate|default|after:SECONDS] [--timer ID]
      press BUTTON [--hold-ms N]  press a mock button (daemon started with --buttons mock)
      test-pattern [--seconds S | --off]
                                 show the alignment pattern on the panel for S seconds
                                 (default 30): border, corner marks, rulers, checkerboard
      brightness N | night | day [--json]
                                 the panel's contrast (0-255) or night mode on/off, until
                                 the next boundary of [display] night
      status [--json] [--timer ID]
      watch [--json] [--timer ID]  a live picture of the pill (of one timer with --timer),
                                 or the raw JSON Lines stream (every activity)
      settings [get | set KEY VALUE | reset KEY | export FILE | import FILE] [--json]
                                 the settings the page may change (kept in the state
                                 directory's settings.json, over the config file)
      render ...                 render a state to an image (see isletctl render --help)
      replay ...                 replay a bus capture (see isletctl replay --help)
    Options: --help, --version, --timeout S (how long to wait for an answer; default 10).
    The socket defaults to $ISLET_SOCKET, then
    $XDG_RUNTIME_DIR/islet/islet.sock if it exists, then /run/islet/islet.sock.
    Exit status: 0 done, 1 refused by the daemon (its reason on stderr), 64 bad usage,
    65 settings import: the backup is too large for a restore request,
    66 settings import: FILE cannot be read, 69 no daemon answers or the socket refuses you,
    73 settings export: FILE cannot be written, 75 the daemon did not answer within 10 s.
    """

    struct Usage: Error { var message: String }

    public static func run(arguments: [String]) -> Int32 {
        // A daemon that refuses a connection closes it: a write then fails with EPIPE, which
        // isletctl reports with the daemon's reason, instead of dying silently of SIGPIPE (141).
        StopAndReloadSignals.ignoreBrokenPipe()
        var args = arguments
        var socketPath: String?
        var timeoutMs = ControlClient.answerTimeoutMs
        // Global options come before the command.
        while let a = args.first, a.hasPrefix("-") {
            args.removeFirst()
            switch a {
            case "-h", "--help": print(usage); return 0
            case "--version": print("isletctl \(IsletVersion.string)"); return 0
            case "--socket":
                guard let v = args.first else { return usageError("--socket needs a path") }
                socketPath = v
                args.removeFirst()
            case "--timeout":
                guard let v = args.first, let s = Double(v), s.isFinite, (0.1...3600).contains(s) else {
                    return usageError("--timeout needs seconds from 0.1 to 3600")
                }
                timeoutMs = Int32(s * 1000)
                args.removeFirst()
            default:
                if a.hasPrefix("--socket=") { socketPath = String(a.dropFirst(9)); continue }
                return usageError("unknown option \(a)")
            }
        }
        guard let command = args.first else { return usageError("no command given") }
        args.removeFirst()
        switch command {
        case "render": return RenderCommand.run(arguments: args)
        case "replay": return ReplayCommand.run(arguments: args)
        case "settings": return SettingsCommand.run(args, socket: socketPath ?? DaemonPaths.clientSocket(), timeoutMs: timeoutMs)
        default: break
        }
        let parsed: Parsed
        do { parsed = try parse(command, args) } catch { return usageError(error.message) }
        if parsed.help { print(usage); return 0 }
        let path = socketPath ?? DaemonPaths.clientSocket()
        do {
            let client = try ControlClient(path: path)
            if parsed.request.op == .watch { return try watch(client, json: parsed.json, timer: parsed.request.timer) }
            let (raw, answer) = try client.request(parsed.request, timeoutMs: timeoutMs)
            var response = answer
            if !response.ok {
                let e = response.error
                printError("isletctl: \(e?.message ?? "refused") (\(e?.code ?? "error"))")
                if parsed.json { print(String(decoding: raw, as: UTF8.self)) }
                return 1
            }
            if parsed.request.op == .status, let t = parsed.request.timer {
                response.activities = response.activities?.filter { $0.timerID == t }
            }
            if parsed.json { print(String(decoding: raw, as: UTF8.self)) }
            else if parsed.request.op == .testPattern {
                let s = parsed.request.patternSeconds
                print(s == 0 ? "test pattern ended" : "test pattern on the panel for \(s) s (isletctl test-pattern --off ends it)")
            } else if parsed.request.op == .brightness {
                print(response.status?.night?.line ?? "done")
            } else if parsed.request.op == .press {
                // The answer is the state at the press; the gesture acts once it is recognized (a
                // press of a button that also has a long press: at its release), so say only that.
                let hold = parsed.request.holdMilliseconds
                print("pressed \(parsed.request.button ?? "")" + (hold > 0 ? ", released after \(hold) ms" : ""))
            } else {
                // Times as the daemon's timeline has them (it may differ from this wall clock).
                let local = Instant(milliseconds: Posix.wallMilliseconds())
                let now = local + .milliseconds(response.skewMilliseconds(receivedAt: local))
                print(describe(response, now: now, withStatus: parsed.request.op == .status))
            }
            return 0
        } catch {
            printError("isletctl: \(error)")
            switch error {
            case .unavailable: return 69
            case .protocolViolation: return 1
            case .timedOut: return 75
            }
        }
    }

    struct Parsed {
        var request: ControlRequest
        var json = false
        var help = false
    }

    static func parse(_ command: String, _ args: [String], now: Instant = Instant(milliseconds: SystemClock.wallMilliseconds())) throws(Usage) -> Parsed {
        // Commands are spelled with hyphens where the protocol's op has underscores.
        guard let op = ControlOp(rawValue: command.contains("_") ? "" : command.replacing("-", with: "_")) else {
            throw Usage(message: "unknown command \"\(command)\"")
        }
        guard !op.isSettings else { throw Usage(message: "use isletctl settings [get|set KEY VALUE|reset KEY|export FILE|import FILE]") }
        var p = Parsed(request: ControlRequest(op: op))
        var i = 0
        var positional: [String] = []
        func value(_ flag: String) throws(Usage) -> String {
            i += 1
            guard i < args.count else { throw Usage(message: "\(flag) needs a value") }
            return args[i]
        }
        func number(_ flag: String) throws(Usage) -> Double {
            let v = try value(flag)
            guard let d = Double(v), d.isFinite, d >= 0 else { throw Usage(message: "\(flag) needs a number, 0 or more (got \"\(v)\")") }
            return d
        }
        func allowed(_ ops: Set<ControlOp>, _ flag: String) throws(Usage) {
            guard ops.contains(op) else { throw Usage(message: "\(command) does not take \(flag)") }
        }
        while i < args.count {
            let a = args[i]
            switch a {
            case "-h", "--help": p.help = true
            case "--timer":
                guard op != .press else {
                    throw Usage(message: "press takes no --timer: a button acts on the timer its binding names ([buttons] on.NAME.GESTURE = ACTION@TIMER) or the most recently started one")
                }
                guard op != .brightness else { throw Usage(message: "brightness takes no --timer: it is the panel's, not a timer's") }
                p.request.timer = try value(a)
            case "--json": try allowed([.status, .watch, .brightness], a); p.json = true
            case "--minutes":
                try allowed([.verb(.start)], a)
                guard p.request.start.seconds == nil else { throw Usage(message: "give --minutes or --seconds, not both") }
                p.request.start.seconds = try number(a) * 60
            case "--seconds" where op == .testPattern:
                let v = try value(a)
                guard let n = Int(v), (1...ControlRequest.maximumPatternSeconds).contains(n) else {
                    throw Usage(message: "--seconds needs a whole number from 1 to \(ControlRequest.maximumPatternSeconds); --off ends the pattern")
                }
                p.request.patternSeconds = n
            case "--off": try allowed([.testPattern], a); p.request.patternSeconds = 0
            case "--seconds":
                try allowed([.verb(.start)], a)
                guard p.request.start.seconds == nil else { throw Usage(message: "give --minutes or --seconds, not both") }
                p.request.start.seconds = try number(a)
            case "--cycles":
                try allowed([.verb(.start)], a)
                let v = try value(a)
                guard let n = Int(v), n >= 0 else { throw Usage(message: "--cycles needs a whole number, 0 for open-ended") }
                p.request.start.cycles = n
            case "--language": try allowed([.verb(.start)], a); p.request.start.language = try value(a)
            case "--title": try allowed([.verb(.start)], a); p.request.start.title = try value(a)
            case "--stopwatch": try allowed([.verb(.start)], a); p.request.start.stopwatch = true
            case "--cycle-end-seconds": try allowed([.verb(.start)], a); p.request.start.cycleEndSeconds = try number(a)
            case "--stale-after-seconds": try allowed([.verb(.start)], a); p.request.start.staleAfterSeconds = try number(a)
            case "--dismissal":
                try allowed([.verb(.end)], a)
                let v = try value(a)
                switch v {
                case "immediate": p.request.dismissal = .immediate
                case "default": p.request.dismissal = .default
                default:
                    guard v.hasPrefix("after:"), let s = Double(v.dropFirst(6)), s.isFinite, s >= 0 else {
                        throw Usage(message: "--dismissal takes immediate, default or after:SECONDS (got \"\(v)\")")
                    }
                    p.request.dismissal = .afterSeconds(s)
                }
            case _ where try UntilOptions.take(a, op: op, value: { () throws(Usage) in try value(a) }, into: &p.request, now: now):
                break
            case "--hold-ms":
                try allowed([.press], a)
                let v = try value(a)
                guard let n = Int(v), (0...60_000).contains(n) else { throw Usage(message: "--hold-ms needs 0 to 60000") }
                p.request.holdMilliseconds = n
            default:
                guard !a.hasPrefix("-") else { throw Usage(message: "unknown option \(a) for \(command)") }
                positional.append(a)
            }
            i += 1
        }
        if p.request.start.stopwatch, p.request.start.seconds != nil || p.request.start.cycles != nil {
            throw Usage(message: "--stopwatch takes no --minutes, --seconds or --cycles")
        }
        if op == .press {
            guard positional.count == 1 else { throw Usage(message: "press needs one BUTTON") }
            p.request.button = positional[0]
        } else if op == .brightness {
            guard positional.count == 1 else { throw Usage(message: "brightness needs one of: a contrast 0-255, night, day") }
            switch positional[0] {
            case "night": p.request.brightness.night = true
            case "day": p.request.brightness.night = false
            case let v:
                guard let n = Int(v), (0...255).contains(n) else { throw Usage(message: "brightness needs a contrast 0-255, night or day (got \"\(v)\")") }
                p.request.brightness.contrast = UInt8(n)
            }
        } else if let extra = positional.first {
            throw Usage(message: "unexpected argument \"\(extra)\"")
        }
        return p
    }

    static func describe(_ r: ControlResponse, now: Instant, withStatus: Bool) -> String {
        var lines: [String] = []
        let acts = r.activityList ?? []
        if acts.isEmpty { lines.append("idle") }
        for a in acts {
            var s = "\(a.timerID): \(a.phase.rawValue)"
            let pushed = a.content.pushed
            if a.phase == .paused || (a.phase == .running && (pushed == nil || pushed?.endsAt != nil)) {
                s += " " + ShownTime.format(ShownTime.seconds(of: a, at: now))
            }
            switch a.attributes.kind {
            case .countdown(_, let total?): s += " (cycle \(a.content.cycle) of \(total))"
            case .countdown(_, nil): s += " (cycle \(a.content.cycle), open-ended)"
            case .stopwatch: break
            case .until:
                // What its source said: "(Rinsing, 40%)".
                let said = [pushed?.text, pushed?.progress.map { "\(Int(($0 * 100).rounded()))%" }].compactMap { $0 }
                if !said.isEmpty { s += " (" + said.joined(separator: ", ") + ")" }
            }
            if a.content.isStale { s += " [stale]" }
            lines.append(s)
        }
        if withStatus, let st = r.status {
            lines.append("presentation \(st.presentation); panel \(st.bus) \(st.panelPresent ? "present" : "not answering"), display \(st.panelOn ? "on" : "off")")
            if let t = st.transport {
                lines.append("transport " + (t == "i2c" ? "i2c (plain I²C: I2C_RDWR, one message a write)" : t == "smbus" ? "smbus (SMBus I²C-block writes)" : t))
            }
            if let e = st.panelError { lines.append("panel error: \(e)") }
            lines.append("wake-ups \(st.wakeups), frames \(st.frames), bus bytes \(st.busBytes), bus errors \(st.busErrors), clients \(st.clients), up \(Int(st.uptimeSeconds)) s")
            if let e = st.storeError { lines.append("state file problem: \(e)") }
            if st.clockBehind { lines.append("the clock is behind the last save: times are shown stale") }
            if let m = st.mqtt { lines.append(m.line) }
            if let g = st.sync { lines.append(g.line) }
            if let w = st.web { lines.append(w.line) }
            if let n = st.night { lines.append(n.line) }
        }
        return lines.joined(separator: "\n")
    }

    /// Streams changes until the daemon goes away (exit 69) or the user interrupts.
    /// With `timer`, the picture shows that timer's activity alone.
    static func watch(_ client: ControlClient, json: Bool, timer: String? = nil) throws(ClientError) -> Int32 {
        // The panel's size first, so the picture has the pill's proportions.
        var width = 128, height = 64
        if !json, let size = try client.request(ControlRequest(op: .status)).response.status?.size {
            if let s = PanelSize(parsing: size) { width = s.width; height = s.height }
        }
        try client.send(ControlRequest(op: .watch).encodedLine())
        var activities: [Activity] = []
        // The daemon's scene as of its last line: the presentation and the activities it shows.
        // The daemon decides both (and sends a change when an expanded view ends); this only
        // draws them, ticking the time between lines.
        var presentation: Presentation?
        var shown: [Activity] = []
        var skew: Int64 = 0
        func daemonNow() -> Instant { Instant(milliseconds: Posix.wallMilliseconds() + skew) }
        // Without fonts the client still streams, as text only.
        let renderer = try? Renderer()
        var last = ""
        if !json { writeOut("\u{1B}[2J") }
        while true {
            let now = daemonNow()
            var timeout: Int32 = -1
            if !json {
                // Redraw when the shown second changes; the stream only carries transitions.
                let next = activities.compactMap { ShownTime.nextDeadline(of: $0, after: now) }.map(\.at).min()
                if let next { timeout = Int32(clamping: max(0, (next - now).wholeMilliseconds + 1)) }
            }
            let line: [UInt8]?
            do { line = try client.readLine(timeoutMs: timeout) }
            catch {
                printError("isletctl: the daemon went away (\(error))")
                return 69
            }
            if let line {
                if json { writeOut(String(decoding: line, as: UTF8.self) + "\n"); continue }
                let r = try ControlClient.decode(line)
                skew = r.skewMilliseconds(receivedAt: Instant(milliseconds: Posix.wallMilliseconds()))
                activities = (r.activityList ?? activities).filter { timer == nil || $0.timerID == timer }
                presentation = r.presentation.flatMap(Presentation.init(rawValue:))
                shown = r.shownActivities(timer: timer)
            }
            if json { continue }
            let t = daemonNow()
            var frame = Bitmap(width: width, height: height)
            if let presentation, !shown.isEmpty, let renderer {
                renderer.render(Scene(activities: shown, presentation: presentation, now: t), options: RenderOptions(), into: &frame)
            }
            var text = "\u{1B}[H" + (renderer == nil ? "" : TerminalPreview.framed(frame))
            text += describe(ControlResponse(ok: true, activities: activities, now: t), now: t, withStatus: false) + "\u{1B}[J\n"
            if text != last { last = text; writeOut(text) }
        }
    }

    static func writeOut(_ s: String) { StandardStream.output.write(s) }

    static func printError(_ s: String) { StandardStream.error.writeLine(s) }

    static func usageError(_ m: String) -> Int32 {
        printError("isletctl: \(m)\n\(usage)")
        return 64
    }
}
