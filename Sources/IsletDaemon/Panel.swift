import IsletSettings
import IsletParts
import IsletSystem
import IsletFrame
import IsletCore
import IsletDisplay
import IsletRender
import IsletProtocol
import IsletConfig

/// The panel and what it presents: the presentation policy (one place decides the scene),
/// the test pattern, the frame on the glass, a panel that does not answer (retried with
/// backoff, logged once), the schedule of the next visible change, the terminal preview and
/// the bus counters. The frame is rendered once per turn; the schedule reuses it.
final class Panel {
    private let env: PartEnvironment
    private var settings: Settings
    let output: any PanelOutput
    private let renderer: any FrameRenderer
    private(set) var policy = PresentationPolicy()
    /// The test pattern shows instead of the activities until this instant.
    private var testPatternUntil: MonotonicInstant?
    private(set) var ready = false
    private var backoff = Backoff(initialMs: 250, maximumMs: 8000)
    /// The frame last rendered from a scene, and the scene and shift it shows.
    private var rendered: Rendered?
    /// The schedule's last answer and what it was computed for.
    private var wake: Wake?
    private let preview: TerminalScreen?
    private(set) var counters = Counters()
    /// A frame was skipped (a display joining its group holds them): the next turn draws.
    private var owed = true
    /// Grows with every change the glass may show (a frame sent, the display switched).
    private(set) var pictureVersion = 0
    /// The last scene decided, and what it was decided from: an answer, the watchers' change
    /// and the frame of one turn share it.
    private var decided: Decided?

    /// What the panel takes from the configuration (size at start; the rest reloads).
    struct Settings {
        let width: Int
        let height: Int
        var pixelShiftMinutes: Int
        var onExit: ExitDisplay
        /// 81h by day: `[display] contrast`, else the module's own (the controller table's).
        var dayContrast: UInt8
        /// 81h in force: the day's until a part asks otherwise (night mode).
        var contrast: UInt8
        init(_ c: DaemonConfig, model: PanelModel) {
            width = c.width
            height = c.height
            pixelShiftMinutes = c.pixelShiftMinutes
            onExit = c.onExit
            dayContrast = c.contrast ?? model.contrast
            contrast = dayContrast
        }
    }

    struct Counters {
        /// Scenes decided by the presentation policy for a turn's instant, and frames rendered
        /// for the panel (the schedule's look-ahead not counted): one each per press.
        var scenes = 0
        var renders = 0
        var frames = 0
        var busBytes = 0
        var busErrors = 0
        /// The last failure, for `status` while the panel does not answer (nil once it does).
        var lastError: String?
    }

    init(_ env: PartEnvironment, config: DaemonConfig, preview: TerminalScreen?) throws(DaemonStartError) {
        self.env = env
        let model: PanelModel
        do { model = try config.panelModel(origin: "display") }
        catch { throw DaemonStartError("\(error)", status: ConfigError.exitStatus) }
        settings = Settings(config, model: model)
        switch config.bus {
        case .mock:
            do {
                output = try DriverPanel(mockModel: model, address: UInt8(config.address), rotation: config.rotation,
                                         contrast: config.contrast, capture: config.capture, unplug: config.mockUnplug)
            } catch { throw DaemonStartError(error.message, status: 73) }
        case .device(let path):
            output = DriverPanel(device: path, model: model, address: UInt8(config.address), rotation: config.rotation,
                                 contrast: config.contrast, transport: config.transport)
        }
        if config.testPatternSeconds > 0 {
            testPatternUntil = env.startedAt.adding(milliseconds: Int64(config.testPatternSeconds) * 1000)
        }
        do { renderer = try Renderer() }
        catch { throw DaemonStartError("cannot load the fonts: \(error); install xfonts-terminus and xfonts-unifont or set $ISLET_FONT_DIR", status: 72) }
        self.preview = preview
    }

    func reload(_ config: DaemonConfig) {
        settings.pixelShiftMinutes = config.pixelShiftMinutes
        settings.onExit = config.onExit
        // A new day contrast goes out at the turn's `take(_:)` unless a part asks for another.
        if let c = config.contrast ?? (try? config.panelModel(origin: "display"))?.contrast { settings.dayContrast = c }
    }

    var displayIsOn: Bool { output.displayIsOn }
    var transport: String? { (output as? DriverPanel)?.transport?.rawValue }
    var visibleImage: PanelImage? { output.visibleImage }
    var readsKeys: Bool { preview?.readsKeys ?? false }

    // MARK: what is presented

    /// The presentation's name and the timers it shows, left to right (none for the test
    /// pattern or a dark panel): what clients are told so they never decide it themselves.
    func shown(_ activities: [Activity], now: Instant) -> (presentation: String, timers: [String]) {
        if testPatternUntil != nil { return ("test_pattern", []) }
        guard let scene = scene(activities, now: now) else { return ("off", []) }
        return (scene.presentation.rawValue, scene.activities.map(\.timerID))
    }

    /// The presentation policy's scene, decided once for the same activities, policy and instant.
    private func scene(_ activities: [Activity], now: Instant) -> Scene? {
        if let d = decided, d.now == now, d.policy == policy, d.activities == activities { return d.scene }
        let scene = policy.scene(of: activities, now: now)
        counters.scenes += 1
        decided = Decided(activities: activities, policy: policy, now: now, scene: scene)
        return scene
    }

    func expand(_ timer: String, until: Instant) {
        policy.expandedUntil = until
        policy.expandedTimer = timer
    }

    /// Ends an expand whose time is up; true when the presentation changed.
    func endExpandIfDue(_ now: Instant) -> Bool {
        guard let until = policy.expandedUntil, until <= now else { return false }
        policy.expandedUntil = nil
        policy.expandedTimer = nil
        return true
    }

    /// Sends 81h alone, no redraw (the night part at a boundary). A panel that fails is retried
    /// as after any bus error, and comes back with this contrast.
    /// What a part asks of the panel (night mode): a changed contrast goes out as one 81h
    /// command, no redraw (before the panel is up, its init sequence carries it); dark idle
    /// is the policy's.
    func take(_ ask: PanelAsk) {
        policy.darkWhenIdle = ask.darkWhenIdle
        let contrast = ask.contrast ?? settings.dayContrast
        guard contrast != settings.contrast else { return }
        settings.contrast = contrast
        do { counters.busBytes += try output.setContrast(contrast) }
        catch { failed(error, mono: env.mono) }
    }

    /// Shows the test pattern for `seconds` (0 ends it).
    func showTestPattern(seconds: Int) {
        testPatternUntil = seconds == 0 ? nil : env.mono.adding(milliseconds: Int64(seconds) * 1000)
    }

    // MARK: the frame

    /// Brings the panel up, once; false (and a retry with backoff) when it does not answer.
    @discardableResult
    func bringUp(mono: MonotonicInstant) -> Bool {
        do {
            counters.busBytes += try output.initialize()
            ready = true
            counters.lastError = nil
            backoff.succeeded()
            env.log.reset(topic: "panel")
            env.log.notice("panel \(output.name) answers")
            return true
        } catch {
            failed(error, mono: mono)
            return false
        }
    }

    /// Puts the frame for `now` on the panel (the driver sends only what changed), switches the
    /// display, and redraws the preview. True when the test pattern ended (watchers are told).
    func refresh(_ activities: [Activity], now: Instant, status: () -> String) -> Bool {
        let mono = env.mono
        owed = false
        var patternEnded = false
        if let until = testPatternUntil, mono >= until {
            testPatternUntil = nil
            patternEnded = true
        }
        let scene = scene(activities, now: now)
        let pattern = testPatternUntil != nil
        if !ready {
            guard scene != nil || pattern || output.displayIsOn, backoff.retryAt.map({ mono >= $0 }) ?? true,
                  bringUp(mono: mono) else {
                updatePreview(status)
                return patternEnded
            }
        }
        do {
            if scene != nil || pattern {
                let frame: Bitmap
                if let scene, !pattern { frame = render(scene) }
                else { frame = TestPattern.frame(width: settings.width, height: settings.height) }
                let sent = try output.show(frame)
                if sent > 0 {
                    counters.busBytes += sent
                    counters.frames += 1
                    pictureVersion += 1
                    if let e = (output as? DriverPanel)?.mock?.captureError {
                        env.log.limited(.error, topic: "capture", intervalMs: .max, nowMs: mono.milliseconds, "the capture stopped: \(e)")
                    }
                }
                if !output.displayIsOn {
                    counters.busBytes += try output.setDisplay(on: true)
                    pictureVersion += 1
                }
            } else if output.displayIsOn {
                counters.busBytes += try output.setDisplay(on: false)
                pictureVersion += 1
            }
        } catch {
            failed(error, mono: mono)
        }
        updatePreview(status)
        // With the frame on the bus: the schedule, from the frame just drawn (not drawn again).
        if scene != nil, !pattern { _ = nextFrameChange(activities, now: now) } else { wake = Wake(activities: activities, policy: policy, at: nil) }
        return patternEnded
    }

    private func pixelShift(at now: Instant) -> (dx: Int, dy: Int) {
        PixelShiftSchedule(periodMinutes: settings.pixelShiftMinutes).offset(at: now)
    }

    /// The scene's frame; the same scene (and shift) is drawn only once.
    private func render(_ scene: Scene) -> Bitmap {
        let shift = pixelShift(at: scene.now)
        if let r = rendered, r.scene == scene, r.shift == shift { return r.frame }
        var frame = Bitmap(width: settings.width, height: settings.height)
        var options = RenderOptions()
        options.shift = shift
        renderer.render(scene, options: options, into: &frame)
        counters.renders += 1
        rendered = Rendered(scene: scene, shift: shift, frame: frame)
        return frame
    }

    private func failed(_ error: PanelError, mono: MonotonicInstant) {
        counters.busErrors += 1
        pictureVersion += 1
        ready = false
        counters.lastError = error.message
        backoff.failed(at: mono)
        env.log.limited(.warning, topic: "panel", nowMs: mono.milliseconds,
                        "panel not answering (\(error)); the timer keeps running, retrying with backoff")
    }

    private func updatePreview(_ status: () -> String) {
        guard let preview else { return }
        preview.show(output.visibleImage, status: status() + (ready || counters.busErrors == 0 ? "" : "  (panel not answering)"))
    }

    // MARK: when to wake

    /// A frame is held back this turn; the next one that may draw does.
    func owe() { owed = true }

    /// Whether the frame must be drawn this turn though nothing changed: the activities' next
    /// visible change has come (a second of a countdown), or one of the panel's own deadlines
    /// (pixel shift, the test pattern's end, a retry). A turn that only served a request or a
    /// broker's message draws nothing.
    func isDue(_ activities: [Activity], now: Instant, mono: MonotonicInstant) -> Bool {
        if owed { return true }
        if let d = nextDeadline(activities, now: now), mono >= d { return true }
        guard let w = wake, w.activities == activities, w.policy == policy else { return true }
        return w.at.map { now >= $0 } ?? false
    }

    /// The panel's own deadlines: a pixel shift, the test pattern's end, a retry of a panel
    /// that did not answer (only while something wants to be shown).
    func nextDeadline(_ activities: [Activity], now: Instant) -> MonotonicInstant? {
        var best: MonotonicInstant?
        func consider(_ m: MonotonicInstant?) { if let m { best = best.map { min($0, m) } ?? m } }
        if output.displayIsOn, let shift = PixelShiftSchedule(periodMinutes: settings.pixelShiftMinutes).nextChange(after: now) {
            consider(env.clock.monotonicInstant(of: shift))
        }
        consider(testPatternUntil)
        if !ready, !activities.isEmpty || output.displayIsOn || testPatternUntil != nil { consider(backoff.retryAt) }
        return best
    }

    /// The activities' next visible change (FrameSchedule), kept until the activities or the
    /// policy change or the instant passes. Minimal icons are probed by drawing; the frame
    /// on the panel now is not drawn again.
    func nextFrameChange(_ activities: [Activity], now: Instant) -> Instant? {
        if let w = wake, w.activities == activities, w.policy == policy, w.at.map({ now < $0 }) ?? true {
            return w.at
        }
        var options = RenderOptions()
        options.shift = pixelShift(at: now)
        let current = rendered
        let at = FrameSchedule.nextChange(activities: activities, policy: policy, now: now) { scene in
            if let current, current.scene == scene, current.shift == options.shift { return current.frame }
            var frame = Bitmap(width: settings.width, height: settings.height)
            renderer.render(scene, options: options, into: &frame)
            return frame
        }
        wake = Wake(activities: activities, policy: policy, at: at)
        return at
    }

    // MARK: the end

    func shutdown() {
        if settings.onExit == .off, ready, output.displayIsOn { _ = try? output.setDisplay(on: false) }
        (output as? DriverPanel)?.stopCapture()
        preview?.restore()
    }
}

extension Panel {
    /// The frame last rendered from a scene, and the scene and shift it shows.
    struct Rendered {
        var scene: Scene
        var shift: (dx: Int, dy: Int)
        var frame: Bitmap
    }

    /// The schedule's last answer and what it was computed for.
    struct Wake {
        var activities: [Activity]
        var policy: PresentationPolicy
        var at: Instant?
    }

    /// The last scene decided, and what it was decided from.
    struct Decided {
        var activities: [Activity]
        var policy: PresentationPolicy
        var now: Instant
        var scene: Scene?
    }
}
