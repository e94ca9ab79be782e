import IsletParts
import IsletSystem
import IsletProtocol
import IsletCore

/// The inputs' side: the one place the activities change (`perform`, `adopt`), what each
/// request does, and the answers. A change's effects are values handed on in one place
/// (`dispatch`); its answer waits until the change is durable and the turn's frame is out.
extension Daemon: Inbox {
    // MARK: the one place the activities change

    /// Applies an intent to the book; its effects are handed on, and what goes out follows at
    /// the end of the turn (the durable write after it, off the loop).
    @discardableResult
    func perform(_ intent: Intent, timer: String?) -> Result<DurableBook.Applied, ProtocolError> {
        let now = self.now
        let applied: DurableBook.Applied
        do { applied = try book.apply(intent, timer: timer, now: now) }
        catch { return .failure(.from(error)) }
        let change = applied.change
        env.log.debug("\(intent.name) on \(change.timerID): now \(change.transition.phase.rawValue)")
        dispatch(DaemonEffect.of(intent, change: change, changed: applied.changed, activity: book.book.activity(for: change.timerID),
                           now: now, expandSeconds: config.expandSeconds))
        return .success(applied)
    }

    /// A state made elsewhere is the timer's state now: the same path as every other change.
    private func take(_ change: OutsideChange) {
        let now = self.now
        // Time's own transitions since the change, computed here from the same wall instants;
        // they do not chime: the moments passed where the change was made.
        let activity = TimerMachine.advance(change.activity, to: now).activity
        do { try book.adopt(change.timer, activity: activity) }
        catch {
            env.log.limited(.warning, topic: "outside-change", nowMs: env.mono.milliseconds,
                            "\(change.origin)'s state of timer \"\(change.timer)\" is not shown: \(error.message)")
            return
        }
        env.log.debug("timer \(change.timer) now \(activity?.phase.rawValue ?? "gone"), from \(change.origin)")
        dispatch(DaemonEffect.of(outside: change, now: now))
    }

    /// A backup's activities replace the book's. Each clock is read as wall time: the time's
    /// own transitions since the backup are taken now, without a chime (as after a restart: a
    /// countdown restored after its end is complete). The group learns each changed timer.
    /// Whether the book changed (its write then holds the restore's answer too).
    /// The activities a restore replaced, back in the book: its settings.json write failed.
    func putBack(_ list: [Activity]) {
        _ = restore(list, what: "put back the activities a backup's restore had replaced (its settings could not be saved)")
    }

    private func restore(_ list: [Activity], what: String = "") -> Bool {
        let now = self.now
        let advanced = list.map { TimerMachine.advance($0, to: now).activity }.compactMap { $0 }
        let changed: [String]
        do { changed = try book.replaceAll(with: advanced) } catch {
            env.log.warning("the backup's activities were not restored: \(error.message)")
            return false
        }
        // Rate-limited like its sibling `page settings: restored from a backup`, and more: any
        // client of the socket may import in a loop (each answered after a write, 2 a second),
        // so one line per 10 s, the next saying how many were skipped.
        env.log.limited(.info, topic: "backup-restore", intervalMs: 10_000, nowMs: env.mono.milliseconds,
                        what.isEmpty ? "restored \(advanced.count) activities from a backup (\(changed.count) timers changed)"
                                     : "\(what) (\(changed.count) timers changed)")
        dispatch(changed.flatMap { t in
            [DaemonEffect.share(timer: t, activity: book.book.activity(for: t), expandedUntil: nil), .started(timer: t)]
        } + [.announce])
        return !changed.isEmpty
    }

    /// Hands each effect on, in order, as it happens: the panel's presentation and the parts
    /// (the chime, the clock watch, the sync group). What goes out waits for the turn's end.
    func dispatch(_ effects: [DaemonEffect]) {
        turn.snapshot = nil
        turn.redraw = true
        let view = self.view
        for e in effects {
            switch e {
            case .expand(let timer, let until): panel.expand(timer, until: until)
            case .announce: announce()
            case .transition(let t, let timer): noteAlerts(t, timer: timer)
            case .share, .adopted, .started: break
            }
            for p in parts { p.take(e, view) }
        }
    }

    func refreshDisplay(now: Instant) {
        // A display joining its group shows nothing until it has the group's state.
        if parts.contains(where: { $0.holdsFrames }) {
            panel.owe()
            return
        }
        let activities = book.activities
        let patternEnded = panel.refresh(activities, now: now) {
            activities.last.map { "\($0.timerID): \($0.phase.rawValue) \(ShownTime.format(ShownTime.seconds(of: $0, at: now)))" } ?? "idle"
        }
        if patternEnded { announce() }
    }

    /// The writer finished: starts stand or roll back (a change shared with the group); the
    /// answers that waited go out at the end of the turn, after its frame.
    func takeWriteCompletions() {
        for t in book.takeCompletions() { rolledBack(t) }
    }

    private func rolledBack(_ timer: String) {
        dispatch([.share(timer: timer, activity: book.book.activity(for: timer), expandedUntil: nil), .announce])
    }

    /// Sends every held answer whose write is done and whose turn has drawn its frame; one
    /// snapshot (one scene) serves them all.
    func releaseAnswers() {
        let now = self.now
        let answers = Answers(durable: book.durableGeneration, settingsDurable: settings.durable) { [unowned self] pending in
            if case .settings = pending.shape { return settings.answer(afterWrite: pending.settingsWrite) }
            switch pending.ticket.flatMap(book.failure(of:)) {
            case .notSaved(let why)?:
                return .failure(ProtocolError("store_failed", "could not save the new activity: \(why)"))
            case .cancelled?:
                return .failure(ProtocolError("cancelled", "the start of timer \"\(pending.ticket?.timerID ?? "")\" was cancelled"))
            case nil:
                var r = snapshot()
                switch pending.shape {
                case .state: break
                case .status(let timer):
                    // `timer` narrows the answer to that timer (none when it has no activity).
                    if let timer { r.activities = r.activities?.filter { $0.activity.timerID == timer } }
                    r.status = daemonStatus(now: now)
                case .watch: r.event = "snapshot"
                case .press(let press, let release):
                    r.pressMonotonicMicroseconds = press
                    r.releaseMonotonicMicroseconds = release
                case .settings: break
                }
                return r
            }
        }
        for p in parts { p.releaseAnswers(answers) }
        book.forgetFinishedStarts()
    }

    // MARK: Inbox

    package func request(_ req: ControlRequest) -> Reply {
        do { return try handle(req) }
        catch { return .now(.failure(error)) }
    }

    package func post(_ event: PartEvent) {
        switch event {
        case .intent(let intent, let timer, let source):
            // Fresh again only what no part holds stale for its own reason.
            if intent == .markFresh, parts.contains(where: \.timeStands) { return }
            if case .failure(let e) = perform(intent, timer: timer), let source { env.log.info("\(source): \(e.message)") }
        case .outside(let change):
            take(change)
        case .displayChanged:
            announce()
        case .abandoned(let tickets):
            for t in tickets where book.cancelStart(t.timerID) {
                env.log.info("the start of timer \"\(t.timerID)\" was cancelled: its client left before it was saved")
                rolledBack(t.timerID)
            }
        }
    }

    private func handle(_ req: ControlRequest) throws(ProtocolError) -> Reply {
        // The ops a part owns (`press`, `brightness`) are its to answer.
        let view = self.view
        for p in parts { if let r = try p.answer(req, view) { return r } }
        switch req.op {
        case .verb(let verb):
            if verb == .start { try IconCheck.check(req.start.icon) }
            let done = try perform(req.intent(of: verb, session: config.session, now: now), timer: req.timer).get()
            return .later(done.changed ? PendingAnswer(generation: book.nextGeneration, ticket: done.ticket) : PendingAnswer())
        case .status: return .later(PendingAnswer(shape: .status(timer: req.timer)))
        // Over MQTT the activity topics are the stream: the answer is the snapshot alone.
        case .watch: return .later(PendingAnswer(shape: .watch))
        case .press, .brightness:
            throw ProtocolError("not_supported", "no part of this daemon answers \(req.op)")
        case .settings, .settingsSet, .settingsReset, .settingsExport, .settingsImport:
            let outcome = try settings.answer(req, nowMs: env.mono.milliseconds, now: now, activities: book.activities)
            if let changed = outcome.config {
                _ = putInForce(changed)
                announce()
            }
            let restored = outcome.restore.map { restore($0) } ?? false
            // A change is answered once settings.json holds it (and the state file the
            // restored activities), never before: an acknowledged change survives a kill.
            guard outcome.settingsWrite > 0 else { return .now(outcome.response) }
            return .later(PendingAnswer(generation: restored ? book.nextGeneration : 0, shape: .settings, settingsWrite: outcome.settingsWrite))
        case .testPattern:
            panel.showTestPattern(seconds: req.patternSeconds)
            env.log.info(req.patternSeconds == 0 ? "test pattern ended" : "test pattern for \(req.patternSeconds) s")
            announce()
            return .later(PendingAnswer())
        }
    }

    // MARK: what clients and systemd are told

    /// The activities and their presentation at the turn's instant, made once per turn (until
    /// something changes): every answer and the watchers' change share it.
    func snapshot() -> ControlResponse {
        if let s = turn.snapshot { return s }
        let s = snapshot(now: now)
        turn.snapshot = s
        return s
    }

    /// The moments the chime sounds for, for the watchers too; nothing sounds for a catch-up.
    private func noteAlerts(_ t: Transition, timer: String) {
        guard !turn.catchingUp else { return }
        for (effect, kind) in [(Effect.completed, ChangeAlert.Kind.completed), (.alerted, .alerted)] where t.effects.contains(effect) {
            let a = ChangeAlert(timer: timer, kind: kind)
            if !turn.alerts.contains(a), turn.alerts.count < ChangeAlert.maximumPerEvent { turn.alerts.append(a) }
        }
    }

    /// Watchers, the network and systemd learn the turn's outcome at its end.
    func announce() {
        turn.announce = true
        turn.redraw = true
        turn.snapshot = nil
    }

    private func snapshot(now: Instant) -> ControlResponse {
        let (presentation, timers) = panel.shown(book.activities, now: now)
        return ControlResponse(ok: true, event: nil, activities: book.activities.map { ActivityReport(activity: $0, now: now) },
                               presentation: presentation, shownTimers: timers, status: nil, error: nil, now: now)
    }

    func daemonStatus(now: Instant) -> DaemonStatus {
        let counters = panel.counters
        var s = DaemonStatus(pid: Int(Identity.processID), version: IsletVersion.string,
                             uptimeSeconds: Double(env.mono.nanoseconds(since: env.startedAt)) / 1e9,
                             wakeups: loop.turns, frames: counters.frames, busBytes: counters.busBytes, busErrors: counters.busErrors,
                             panelPresent: panel.ready, panelOn: panel.displayIsOn, bus: config.bus.description,
                             size: "\(config.width)x\(config.height)",
                             presentation: panel.shown(book.activities, now: now).presentation,
                             storeError: book.storeError, panel: panel.visibleImage)
        s.transport = panel.transport
        s.panelError = panel.ready ? nil : counters.lastError
        let view = self.view
        for p in parts { p.report(into: &s, view) }
        return s
    }

    func statusText() -> String {
        let activities = book.activities
        guard let a = activities.last else { return "idle" }
        var s = "\(a.timerID) \(a.phase.rawValue)"
        if activities.count > 1 { s += " (+\(activities.count - 1) more)" }
        if a.content.isStale { s += ", stale" }
        return s
    }
}
