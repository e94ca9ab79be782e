import IsletInput
import IsletSystem
import IsletCore
import IsletLinux
import IsletConfig

/// The chime: the pure player of IsletInput driving an output line (a buzzer or LED on GPIO,
/// or the mock), the timer it is sounding for, and the retry of a line that did not open.
final class Chime {
    private let ctx: DaemonContext
    private var player = ChimePlayer()
    private var output: (any ChimeOutput)?
    /// Times the output was switched on (a pattern of three beeps counts three).
    private(set) var pulses = 0
    /// Set while the start-up catch-up applies events that fell due before this process ran.
    var quiet = false
    /// The timer whose cycle end or completion is sounding.
    private var sounding: String?
    private var retry = LineRetry("chime")

    init(_ ctx: DaemonContext) {
        self.ctx = ctx
        if ctx.config.buttonConfig.chime.isMock { output = MockChimeOutput() }
        else {
            do { output = try Self.open(ctx.config) } catch { retry.failedAtStart(error, ctx) }
        }
    }

    /// Pulses so far, when there is an output (for `status`).
    var reportedPulses: Int? { output == nil ? nil : pulses }

    /// Sounds (or silences) for a transition of `timer`.
    func react(to t: Transition, timer: String) {
        guard !quiet, let cue = ChimeCue.decide(effects: t.effects, phase: t.phase) else { return }
        // A pause or reset silences its own timer's chime, not one another timer is sounding.
        if cue == .silence, sounding != timer { return }
        guard let level = player.handle(cue, config: ctx.config.buttonConfig.chime, at: ctx.mono.nanoseconds) else { return }
        sounding = cue == .silence ? nil : timer
        set(level)
    }

    /// The pattern's next step, and the retry of a line that failed to open.
    func advance(mono: MonotonicInstant) {
        if let d = player.nextDeadline, d <= mono.nanoseconds, let level = player.advance(to: mono.nanoseconds) { set(level) }
        let config = ctx.config
        if let o = retry.attempt(mono: mono, ctx, { () throws(GPIOError) in try Self.open(config) }) { output = o }
    }

    var nextDeadline: MonotonicInstant? {
        earliest(player.nextDeadline.map { MonotonicInstant(nanoseconds: $0) }, retry.retryAt)
    }

    /// Silences a pattern still playing (at shutdown).
    func silence() { if player.isPlaying { set(false) } }

    private func set(_ level: Bool) {
        guard let output else { return }
        if level { pulses += 1 }
        do { try output.set(active: level) }
        catch { ctx.log.limited(.warning, topic: "chime", nowMs: ctx.mono.milliseconds, "the chime line failed: \(error)") }
    }

    private static func open(_ c: DaemonConfig) throws(GPIOError) -> (any ChimeOutput)? {
        guard let spec = try c.buttonConfig.chime.gpioLine() else { return nil }
        return try GPIOOutput(spec: spec, activeLow: c.buttonConfig.chime.activeLow)
    }
}
