import IsletCore

/// `isletctl render --until`: an until activity's frame, built through the core's machine like
/// the others (docs/RENDERING.md, "Pushed activities").
extension RenderCommand {
    static func checkUntil(_ r: Request, sawCycle: Bool, sawElapsed: Bool) throws(UsageError) {
        guard !r.stopwatch, r.duration == nil, !sawCycle, !sawElapsed else {
            throw UsageError(message: "--until takes no --stopwatch, --duration, --cycle(s) or --elapsed (use --remaining, --progress, --text)")
        }
        guard r.state == .running || r.state == .complete || r.state == .idle else {
            throw UsageError(message: "an until activity is running or complete; its source owns the end (got --state \(r.state.rawValue))")
        }
        if let t = r.text, let v = PushedContent(text: t).violation() { throw UsageError(message: "--text: \(v.message)") }
    }

    static func untilScene(_ r: Request) -> (activity: Activity?, now: Instant) {
        let now = origin
        let pushed = PushedContent(endsAt: r.remaining.map { now + .seconds($0) }, progress: r.progress.map { Double($0) / 100 }, text: r.text)
        let attrs = ActivityAttributes(timerID: "until", kind: .until(pushed), title: r.title, language: r.language,
                                       icon: r.icon.map(ActivityIcon.named))
        guard var a = try? TimerMachine.apply(.start(attrs), to: nil, now: now).activity else { return (nil, now) }
        if r.state == .complete, let done = try? TimerMachine.apply(.end(.default), to: a, now: now).activity { a = done }
        a.content.isStale = r.stale
        return (a, now)
    }
}
