import IsletParts
import IsletProtocol
import IsletInput
import IsletSystem
import IsletCore
import IsletLinux
import IsletConfig

/// The chime: the pure player of IsletInput driving an output line (a buzzer or LED on GPIO,
/// or the mock), the timer it is sounding for, and the retry of a line that did not open.
final class Chime: DaemonPart {
    private let env: PartEnvironment
    /// The chime's settings in force (its patterns reload; its line waits for a restart).
    private var settings: ChimeConfig
    private var player = ChimePlayer()
    private var output: (any ChimeOutput)?
    /// Times the output was switched on (a pattern of three beeps counts three).
    private(set) var pulses = 0
    /// The timer whose cycle end or completion is sounding.
    private var sounding: String?
    private var retry = LineRetry("chime")

    init(_ env: PartEnvironment, config: DaemonConfig) {
        self.env = env
        settings = config.buttonConfig.chime
        if settings.isMock { output = MockChimeOutput() }
        else {
            do { output = try Self.open(settings) } catch { retry.failedAtStart(error, env) }
        }
    }

    func reload(_ config: PartConfig) { if let c = config[DaemonConfig.self] { settings = c.buttonConfig.chime } }

    /// Pulses so far, when there is an output.
    func report(into status: inout DaemonStatus, _ turn: TurnView) { if output != nil { status.set("chime_pulses", pulses) } }

    /// A transition, as it happens.
    func take(_ effect: DaemonEffect, _ turn: TurnView) {
        // The start-up catch-up's events fell due while the daemon was down: their moments passed.
        if case .transition(let t, let timer) = effect, !turn.catchingUp { react(to: t, timer: timer, mono: turn.mono) }
    }

    /// Sounds (or silences) for a transition of `timer`.
    private func react(to t: Transition, timer: String, mono: MonotonicInstant) {
        guard let cue = ChimeCue.decide(effects: t.effects, phase: t.phase) else { return }
        // A pause or reset silences its own timer's chime, not one another timer is sounding.
        if cue == .silence, sounding != timer { return }
        guard let level = player.handle(cue, config: settings, at: mono.nanoseconds) else { return }
        sounding = cue == .silence ? nil : timer
        set(level)
    }

    /// The pattern's next step, and the retry of a line that failed to open.
    func afterEvents(_ turn: TurnView) {
        let mono = turn.mono
        if let d = player.nextDeadline, d <= mono.nanoseconds, let level = player.advance(to: mono.nanoseconds) { set(level) }
        let line = settings
        if let o = retry.attempt(mono: mono, env, { () throws(GPIOError) in try Self.open(line) }) { output = o }
    }

    var nextDeadline: MonotonicInstant? {
        earliest(player.nextDeadline.map { MonotonicInstant(nanoseconds: $0) }, retry.retryAt)
    }

    /// Silences a pattern still playing (at shutdown).
    func shutdown(_ turn: TurnView) { if player.isPlaying { set(false) } }

    private func set(_ level: Bool) {
        guard let output else { return }
        if level { pulses += 1 }
        do { try output.set(active: level) }
        catch { env.log.limited(.warning, topic: "chime", nowMs: env.mono.milliseconds, "the chime line failed: \(error)") }
    }

    private static func open(_ c: ChimeConfig) throws(GPIOError) -> (any ChimeOutput)? {
        guard let spec = try c.gpioLine() else { return nil }
        return try GPIOOutput(spec: spec, activeLow: c.activeLow)
    }
}
