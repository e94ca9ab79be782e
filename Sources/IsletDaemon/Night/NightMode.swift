import IsletParts
import IsletSystem
import IsletProtocol
import IsletCore
import IsletConfig
import IsletSettings

/// Night mode (`[display] night`, docs/DISPLAY.md "Night"): at each boundary of the window the
/// panel gets the night's or the day's contrast as one 81h command, no redraw (asked of the
/// core through the turn's values, `PanelAsk`); with
/// `night_idle = dark` a panel with nothing running is switched off at night. A `brightness`
/// request overrides both until the next boundary. Its one deadline is that boundary, so the
/// loop wakes no more often at night than by day.
///
/// The window is the wall clock's, in local time: a Pi without a clock chip boots with a wrong
/// time that NTP steps later; the timers' timeline does not follow that step, the night must.
final class NightMode: DaemonPart {
    private let env: PartEnvironment
    private var settings: NightSettings
    /// The module's own contrast by day (`[display] contrast`, else the controller table's).
    private var dayContrast: UInt8
    private let host: HostZone
    /// The schedule's answer, and the wall instant it was worked out at.
    private var scheduled: (night: Bool, next: Instant?, at: Instant?) = (false, nil, nil)
    /// What the schedule turns to at `scheduled.next`.
    private var nextIsNight = false
    /// A `brightness` request, in force until the boundary after it.
    private var override: Override?
    /// The contrast in force (what `status` says), and what the panel is asked for: a value
    /// held by the rate limit follows within a quarter of a second.
    private var wanted: UInt8?
    private var asked = PanelAsk(contrast: nil, darkWhenIdle: false)
    /// Contrast writes: 4 a second, a burst of 8; a request past that is held, the latest value
    /// sent when the bucket refills (docs/RELIABILITY.md).
    private var writes = RateLimit(perSecond: NightMode.writesPerSecond, burst: NightMode.writeBurst)
    private var deadline: MonotonicInstant?
    private var retryAt: MonotonicInstant?
    private weak var inbox: (any Inbox)?

    static let writesPerSecond: Int64 = 4
    static let writeBurst: Int64 = 8

    struct Override {
        var night: Bool?
        var contrast: UInt8?
        /// The next boundary when it was asked for; nil without a window (until the next request or a restart).
        var until: Instant?
    }

    init(_ env: PartEnvironment, config: DaemonConfig, zone: HostZone = .load()) {
        self.env = env
        settings = config.parts[NightSettings.self] ?? NightSettings()
        dayContrast = Self.dayContrast(config)
        host = zone
        if let problem = zone.problem, settings.window != nil { env.log.warning(problem) }
    }

    /// The validated config always names a known module; 0x7F (the SSD1306's reset value) otherwise.
    private static func dayContrast(_ c: DaemonConfig) -> UInt8 {
        c.contrast ?? (try? c.panelModel(origin: "[display]"))?.contrast ?? 0x7F
    }

    var summary: String? { settings.window.map { "night \($0) (\(host.name))" } }

    func restored(_ restored: Restored) {
        // Before the panel comes up: its init sequence then carries the right contrast.
        evaluate(mono: env.mono)
    }

    func attach(to loop: EventLoop, inbox: any Inbox) throws(SystemError) { self.inbox = inbox }

    func afterEvents(_ turn: TurnView) { evaluate(mono: turn.mono) }

    var nextDeadline: MonotonicInstant? { [deadline, retryAt].compactMap { $0 }.min() }

    func reload(_ config: PartConfig) {
        settings = config.sections[NightSettings.self] ?? NightSettings()
        if let c = config[DaemonConfig.self] { dayContrast = Self.dayContrast(c) }
        scheduled.at = nil
        evaluate(mono: env.mono)
    }

    /// `brightness` is night mode's op: the answer is the status, at the end of the turn.
    func answer(_ request: ControlRequest, _ turn: TurnView) throws(ProtocolError) -> Reply? {
        guard request.op == .brightness else { return nil }
        self.request(request.brightness)
        inbox?.post(.displayChanged)
        return .later(PendingAnswer(shape: .status(timer: nil)))
    }

    /// A contrast, night mode on or off, or both, until the next boundary. Night mode named
    /// alone brings that mode's own contrast back.
    func request(_ b: BrightnessRequest) {
        let mono = env.mono
        evaluate(mono: mono)
        var o = override ?? Override()
        if let n = b.night {
            o.night = n
            o.contrast = b.contrast
        } else if let c = b.contrast {
            o.contrast = c
        }
        o.until = scheduled.next
        override = o
        env.log.info("brightness: " + (b.night.map { $0 ? "night mode" : "day mode" } ?? "contrast \(o.contrast ?? 0)")
                     + (o.until.map { " until \($0)" } ?? ""))
        evaluate(mono: mono)
    }

    /// The schedule at the wall clock's instant, the override's end, and what the panel shows.
    private func evaluate(mono: MonotonicInstant) {
        let wall = Instant(milliseconds: env.loopClock.wallMilliseconds())
        // Worked out again at a boundary, after a step back of the clock, or a new setting;
        // otherwise the answer stands (a step forward past the boundary is caught by the first).
        if scheduled.at == nil || scheduled.next.map({ wall >= $0 }) == true || scheduled.at.map({ wall < $0 }) == true {
            if let window = settings.window {
                let schedule = NightSchedule(window: window, zone: host.zone)
                let s = schedule.state(at: wall)
                scheduled = (s.isNight, s.nextBoundary, wall)
                nextIsNight = schedule.isNight(at: s.nextBoundary)
            } else {
                scheduled = (false, nil, wall)
            }
        }
        if let until = override?.until, wall >= until {
            override = nil
            env.log.info("brightness: the request ends at the boundary; night mode \(scheduled.night ? "on" : "off") by the schedule")
        }
        deadline = scheduled.next.map { mono.adding(milliseconds: max(0, $0.milliseconds - wall.milliseconds)) }
        let night = override?.night ?? scheduled.night
        let contrast = override?.contrast ?? (night ? settings.contrast : dayContrast)
        let dark = night && settings.idle == .dark
        wanted = contrast
        var changed = false
        if dark != asked.darkWhenIdle {
            asked.darkWhenIdle = dark
            changed = true
        }
        retryAt = nil
        if contrast != asked.contrast ?? dayContrast {
            if writes.take(at: mono) {
                asked.contrast = contrast
                changed = true
            } else {
                retryAt = mono.adding(milliseconds: 1000 / Self.writesPerSecond)
            }
        }
        // Watchers, the network and systemd learn it; the frame is drawn if the scene changed.
        if changed { inbox?.post(.displayChanged) }
    }

    var status: NightStatus {
        let night = override?.night ?? scheduled.night
        return NightStatus(night: night, contrast: Int(wanted ?? dayContrast), source: override == nil ? "schedule" : "override",
                           window: settings.window?.description, nextBoundary: scheduled.next,
                           idle: settings.idle.rawValue, zone: host.name, nextNight: nextIsNight,
                           nextLocal: scheduled.next.map { NightStatus.wallClock($0, offsetSeconds: host.zone.utcOffset(at: $0)) })
    }

    func report(into status: inout DaemonStatus, _ turn: TurnView) { status.set("night", self.status) }

    /// The panel's contrast and dark idle for the core; Home Assistant's contrast and night
    /// entities read the status.
    func lend(to values: inout TurnValues) {
        values[PanelAsk.self] = asked
        values[NightStatus.self] = status
    }
}
