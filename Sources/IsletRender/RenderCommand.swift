import IsletFrame
import IsletCore
import IsletIcons

/// One frame of a single activity described by `isletctl render`'s flags: the request, its
/// parser and the scene it stands for (the gallery and the tests draw through it too). The
/// command line around it (usage, files, exit status) is isletctl's (Sources/isletctl).
public enum RenderCommand {
    /// Everything the flags say, checked.
    public struct Request: Hashable, Sendable {
        public enum State: String, Sendable, CaseIterable {
            case running, paused, idle, complete
            case cycleEnd = "cycle-end"
        }
        public var presentation: Presentation = .compact
        public var size: PanelSize = .w128h32
        public var state: State = .running
        public var remaining: Int?
        public var duration: Int?
        public var cycle: Int = 1
        /// 0: open-ended (cycles repeat until the session is ended), as in the content state JSON.
        public var cycles: Int = 1
        public var language: String = "en"
        public var title: String?
        public var stale = false
        public var stopwatch = false
        public var elapsed: Int = 0
        /// `--until`: an until activity (its source's end `remaining` seconds away, if given).
        public var until = false
        /// An until activity's progress, 0 to 100 percent.
        public var progress: Int?
        public var text: String?
        public var icon: String?
        public var scale: Int = 1
        public var output: String = ""
        /// `--test-pattern`: the alignment pattern the daemon shows for `isletctl test-pattern`.
        public var testPattern = false

        public init() {}
    }

    public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses the arguments after `render`.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Request {
        var r = Request()
        var sawOutput = false, sawCycle = false, sawCycles = false, sawElapsed = false
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[i]
        }
        func number(_ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let v = try value(flag)
            guard let n = Int(v), range.contains(n) else {
                throw UsageError(message: "\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \"\(v)\")")
            }
            return n
        }
        while i < arguments.count {
            let flag = arguments[i]
            switch flag {
            case "--presentation":
                let v = try value(flag)
                guard let p = Presentation(rawValue: v) else {
                    throw UsageError(message: "--presentation must be compact, minimal, expanded or lockscreen (got \"\(v)\")")
                }
                r.presentation = p
            case "--size":
                let v = try value(flag)
                guard let s = PanelSize(parsing: v) else {
                    throw UsageError(message: "--size must be \(PanelSize.syntax) (got \"\(v)\")")
                }
                r.size = s
            case "--state":
                let v = try value(flag)
                guard let s = Request.State(rawValue: v) else {
                    throw UsageError(message: "--state must be running, paused, cycle-end, complete or idle (got \"\(v)\")")
                }
                r.state = s
            case "--remaining": r.remaining = try number(flag, 0...86_400)
            case "--duration": r.duration = try number(flag, 1...86_400)
            case "--cycle": r.cycle = try number(flag, 1...999); sawCycle = true
            case "--cycles": r.cycles = try number(flag, 0...999); sawCycles = true
            case "--elapsed": r.elapsed = try number(flag, 0...8 * 3600); sawElapsed = true
            case "--scale": r.scale = try number(flag, 1...64)
            case "--language": r.language = try value(flag)
            case "--title": r.title = try value(flag)
            case "--stale": r.stale = true
            case "--stopwatch": r.stopwatch = true
            case "--until": r.until = true
            case "--test-pattern": r.testPattern = true
            case "--progress": r.progress = try number(flag, 0...100)
            case "--text": r.text = try value(flag)
            case "--icon":
                let v = try value(flag)
                do { _ = try Icon(name: v) } catch { throw UsageError(message: "--icon: \(error)") }
                r.icon = v
            case "-o", "--output": r.output = try value(flag); sawOutput = true
            default:
                throw UsageError(message: "unknown argument \"\(flag)\"")
            }
            i += 1
        }
        guard sawOutput, !r.output.isEmpty else { throw UsageError(message: "-o FILE is required (.pbm, .png, or - for PBM on standard output)") }
        let lower = r.output.lowercased()
        guard r.output == "-" || lower.hasSuffix(".pbm") || lower.hasSuffix(".png") else {
            throw UsageError(message: "-o \(r.output): the file must end in .pbm or .png (or be -)")
        }
        if r.testPattern, r.until || r.stopwatch {
            throw UsageError(message: "--test-pattern shows no activity (drop --until and --stopwatch)")
        }
        if sawCycle != sawCycles { throw UsageError(message: "--cycle and --cycles go together") }
        if r.cycles > 0, r.cycle > r.cycles { throw UsageError(message: "--cycle \(r.cycle) is past --cycles \(r.cycles)") }
        if r.until {
            try checkUntil(r, sawCycle: sawCycle || sawCycles, sawElapsed: sawElapsed)
        } else if r.progress != nil || r.text != nil {
            throw UsageError(message: "--progress and --text need --until")
        }
        if r.stopwatch {
            guard r.state == .running || r.state == .paused || r.state == .idle else {
                throw UsageError(message: "a stopwatch is only running or paused (got --state \(r.state.rawValue))")
            }
            guard r.remaining == nil, r.duration == nil, !sawCycle else {
                throw UsageError(message: "--remaining, --duration and --cycle do not apply to --stopwatch (use --elapsed)")
            }
        } else if sawElapsed {
            throw UsageError(message: "--elapsed needs --stopwatch")
        }
        if let rem = r.remaining, let d = r.duration, rem > d {
            throw UsageError(message: "--remaining \(rem) is longer than --duration \(d)")
        }
        if let t = r.title, t.count > ActivityAttributes.maxTitleLength {
            throw UsageError(message: "--title is longer than \(ActivityAttributes.maxTitleLength) characters")
        }
        do {
            _ = try ActivityAttributes(kind: .stopwatch, language: r.language).validated()
        } catch {
            throw UsageError(message: "--language: \(error.message)")
        }
        return r
    }

    /// The instant the scenes are built at: fixed, so a frame depends on the flags alone.
    public static let origin = Instant(milliseconds: 1_800_000_000_000)

    /// The activity the daemon would hold in this state, built through the core's state
    /// machine, and the `now` at which its shown time is what the flags say. nil for idle.
    public static func scene(_ r: Request) -> (activity: Activity?, now: Instant) {
        let t0 = origin
        if r.state == .idle { return (nil, t0) }
        if r.until { return untilScene(r) }
        if r.stopwatch {
            let attrs = ActivityAttributes(kind: .stopwatch, title: r.title, language: r.language)
            guard let started = try? TimerMachine.apply(.start(attrs), to: nil, now: t0).activity else { return (nil, t0) }
            let now = t0 + .seconds(r.elapsed)
            var a = started
            if r.state == .paused, let p = try? TimerMachine.apply(.pause, to: started, now: now).activity { a = p }
            a.content.isStale = r.stale
            return (a, now)
        }
        let duration = r.duration ?? max(300, r.remaining ?? 0)
        let remaining = min(r.remaining ?? duration, duration)
        let attrs = ActivityAttributes(kind: .countdown(cycle: .seconds(duration), cycles: r.cycles == 0 ? nil : r.cycles),
                                       title: r.title, language: r.language, icon: r.icon.map(ActivityIcon.named))
        // Start the session at t0 - (earlier cycles) so the current cycle begins at t0.
        let cycleStart = t0
        guard var a = try? TimerMachine.apply(.start(attrs), to: nil, now: cycleStart).activity else { return (nil, t0) }
        a.content.cycle = r.cycle
        var now = cycleStart + .seconds(duration - remaining)
        switch r.state {
        case .running:
            break
        case .paused:
            if let p = try? TimerMachine.apply(.pause, to: a, now: now).activity { a = p }
        case .cycleEnd:
            now = cycleStart + .seconds(duration)
            if let t = try? TimerMachine.fire(.cycleEnded, on: a, now: now).activity, t.content.phase == .cycleEnd {
                a = t
            } else {
                // The last cycle has no cycle end in the machine: show the state as asked.
                a.updatedAt = now
                a.content.display = .cycleEnd(nextCycleAt: now + attrs.cycleEndInterval)
            }
        case .complete:
            a.content.cycle = max(r.cycles, r.cycle)
            now = cycleStart + .seconds(duration)
            if let t = try? TimerMachine.fire(.finalCompletion, on: a, now: now).activity, t.content.phase == .complete {
                a = t
            } else {
                // An open-ended session completes only when ended: end it at its cycle's end.
                if let t = try? TimerMachine.apply(.end(.default), to: a, now: now).activity { a = t }
            }
            a.content.cycle = r.cycle
        case .idle:
            return (nil, t0)
        }
        a.content.isStale = r.stale
        return (a, now)
    }

    /// The frame for a request, with the daemon's default options.
    public static func render(_ r: Request, with renderer: Renderer) -> Bitmap {
        if r.testPattern { return TestPattern.frame(width: r.size.width, height: r.size.height) }
        let (activity, now) = scene(r)
        return renderer.render(activity.map { [$0] } ?? [], presentation: r.presentation, now: now, size: r.size)
    }
}
