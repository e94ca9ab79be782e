import IsletSystem
import IsletFrame
import IsletCore
import IsletDisplay
import IsletRender

/// The panel's supervisor: renders the scene, hands the frame to the driver (which sends only
/// what changed), switches the display, and retries a panel that does not answer with backoff.
extension Daemon {
    /// What the panel presents now: the test pattern while it lasts, else the policy's scene.
    /// The policy is the one place that decides the presentation; the renderer draws it and
    /// watchers are told it.
    func presentationName(now: Instant) -> String { shown(now: now).presentation }

    /// The presentation's name and the timers it shows, left to right (none for the test
    /// pattern or a dark panel): what clients are told so they never decide it themselves.
    func shown(now: Instant) -> (presentation: String, timers: [String]) {
        if testPatternUntil != nil { return ("test_pattern", []) }
        guard let scene = policy.scene(of: book.activities, now: now) else { return ("off", []) }
        return (scene.presentation.rawValue, scene.activities.map(\.timerID))
    }

    var wantsPanel: Bool { !book.activities.isEmpty || panel.displayIsOn || testPatternUntil != nil }

    func refreshDisplay(now: Instant) {
        let mono = loopClock.monotonic()
        if let until = testPatternUntil, mono >= until {
            testPatternUntil = nil
            broadcastChange(now: now)
        }
        let scene = policy.scene(of: book.activities, now: now)
        let pattern = testPatternUntil != nil
        if !panelReady {
            guard scene != nil || pattern || panel.displayIsOn, mono >= panelRetryAt else { updateScreen(); return }
            guard bringUpPanel(mono: mono) else { updateScreen(); return }
        }
        do {
            if scene != nil || pattern {
                var frame: Bitmap
                if let scene, !pattern {
                    frame = Bitmap(width: config.width, height: config.height)
                    var options = RenderOptions()
                    options.shift = PixelShiftSchedule(periodMinutes: config.pixelShiftMinutes).offset(at: now)
                    renderer.render(scene, options: options, into: &frame)
                } else {
                    frame = TestPattern.frame(width: config.width, height: config.height)
                }
                // The driver diffs against what the panel holds: an unchanged frame costs nothing.
                let sent = try panel.show(frame)
                if sent > 0 {
                    busBytes += sent
                    frames += 1
                    if let e = (panel as? DriverPanel)?.mock?.captureError {
                        log.limited(.error, topic: "capture", intervalMs: .max, nowMs: mono.milliseconds, "the capture stopped: \(e)")
                    }
                }
                if !panel.displayIsOn { busBytes += try panel.setDisplay(on: true) }
            } else if panel.displayIsOn {
                busBytes += try panel.setDisplay(on: false)
            }
        } catch {
            panelFailed(error, mono: mono)
        }
        updateScreen()
    }

    @discardableResult
    func bringUpPanel(mono: MonotonicInstant) -> Bool {
        do {
            busBytes += try panel.initialize()
            panelReady = true
            panelBackoffMs = 250
            log.reset(topic: "panel")
            log.notice("panel \(panel.name) answers")
            return true
        } catch {
            panelFailed(error, mono: mono)
            return false
        }
    }

    func panelFailed(_ error: PanelError, mono: MonotonicInstant) {
        busErrors += 1
        panelReady = false
        panelRetryAt = mono.adding(milliseconds: panelBackoffMs)
        log.limited(.warning, topic: "panel", nowMs: mono.milliseconds,
                    "panel not answering (\(error)); the timer keeps running, retrying with backoff")
        panelBackoffMs = min(panelBackoffMs * 2, 8000)
    }

    func updateScreen() {
        guard let screen else { return }
        let now = clock.now()
        let line = book.activities.last.map { "\($0.timerID): \($0.phase.rawValue) \(ShownTime.format(ShownTime.seconds(of: $0, at: now)))" } ?? "idle"
        screen.show(panel.visibleImage, status: line + (panelReady || busErrors == 0 ? "" : "  (panel not answering)"))
    }
}

extension MonotonicInstant {
    /// Whole milliseconds, for the log's rate limits and the client bookkeeping.
    var milliseconds: Int64 { Int64(nanoseconds / 1_000_000) }
}
