import IsletSystem
import IsletProtocol
import IsletCore
import IsletSync

/// The requests' side: the one place the activities change (`perform`), what each request
/// does, and what clients and systemd are told. An answer to a change waits until the change
/// is durable; the loop serves everyone else meanwhile.
extension Daemon: ClientsDelegate, MQTTBridgeDelegate, SyncGroupDelegate {
    // MARK: the one place the activities change

    /// Applies an intent to the book, then renders and flushes the new frame and tells
    /// watchers. The durable write follows at the end of the loop's turn, off the loop.
    @discardableResult
    func perform(_ intent: Intent, timer: String?, now: Instant) -> Result<DurableBook.Applied, ProtocolError> {
        let applied: DurableBook.Applied
        do { applied = try book.apply(intent, timer: timer, now: now) }
        catch { return .failure(.from(error)) }
        let change = applied.change
        let expanded = change.transition.effects.contains(.expanded)
        if expanded {
            panel.expand(change.timerID, until: now + .seconds(ctx.config.expandSeconds))
        }
        // A person's change is the group's: its record goes to the other displays.
        if let sync, intent.isSharedChange, applied.changed || expanded {
            sync.recordLocal(change.timerID, activity: book.book.activity(for: change.timerID),
                             expandedUntil: expanded ? now + .seconds(ctx.config.expandSeconds) : nil, now: now)
        }
        if change.transition.effects.contains(.started) { clockWatch.forget(change.timerID) }
        chime.react(to: change.transition, timer: change.timerID)
        ctx.log.debug("\(intent.name) on \(change.timerID): now \(change.transition.phase.rawValue)")
        broadcastChange(now: now)
        refreshDisplay(now: ctx.clock.now())
        return .success(applied)
    }

    func refreshDisplay(now: Instant) {
        // A display joining its group shows nothing until it has the group's state.
        if sync?.holdsFrames() == true { return }
        let activities = book.activities
        let patternEnded = panel.refresh(activities, now: now) {
            activities.last.map { "\($0.timerID): \($0.phase.rawValue) \(ShownTime.format(ShownTime.seconds(of: $0, at: now)))" } ?? "idle"
        }
        if patternEnded { broadcastChange(now: now) }
    }

    /// The writer finished: starts stand or roll back, and the answers that waited are sent.
    func takeWriteCompletions() {
        let rolledBack = book.takeCompletions()
        if !rolledBack.isEmpty {
            let now = ctx.clock.now()
            for t in rolledBack { sync?.recordLocal(t, activity: book.book.activity(for: t), expandedUntil: nil, now: now) }
            broadcastChange(now: now)
            refreshDisplay(now: now)
        }
        releaseAnswers()
    }

    /// Sends every held answer whose write is done.
    func releaseAnswers() {
        let now = ctx.clock.now()
        let answer = { [unowned self] (ticket: StartTicket?) -> ControlResponse in
            switch ticket.flatMap(book.failure(of:)) {
            case .notSaved(let why)?:
                return .failure(ProtocolError("store_failed", "could not save the new activity: \(why)"))
            case .cancelled?:
                return .failure(ProtocolError("cancelled", "the start of timer \"\(ticket?.timerID ?? "")\" was cancelled"))
            case nil:
                return snapshot(now: now)
            }
        }
        clients.releaseAnswers(durable: book.durableGeneration, answer)
        mqtt?.releaseAnswers(durable: book.durableGeneration, answer)
        book.forgetFinishedStarts()
    }

    // MARK: ClientsDelegate

    func clientLeft(withStarts tickets: [StartTicket]) {
        for t in tickets where book.cancelStart(t.timerID) {
            ctx.log.info("the start of timer \"\(t.timerID)\" was cancelled: its client left before it was saved")
            let now = ctx.clock.now()
            sync?.recordLocal(t.timerID, activity: book.book.activity(for: t.timerID), expandedUntil: nil, now: now)
            broadcastChange(now: now)
            refreshDisplay(now: now)
        }
    }

    func answer(_ line: [UInt8], from client: ClientConnection) -> Clients.Reply {
        let now = ctx.clock.now()
        do {
            return try handle(try ControlRequest.parse(line), client: client, now: now)
        } catch {
            return .now(.failure(error))
        }
    }

    private func handle(_ req: ControlRequest, client: ClientConnection?, now: Instant) throws(ProtocolError) -> Clients.Reply {
        func change(_ intent: Intent) throws(ProtocolError) -> Clients.Reply {
            let done = try perform(intent, timer: req.timer, now: now).get()
            return done.changed ? .afterWrite(generation: book.nextGeneration, done.ticket) : .now(snapshot(now: ctx.clock.now()))
        }
        let session = ctx.config.session
        switch req.op {
        case .status:
            var r = snapshot(now: now)
            // `timer` narrows the answer to that timer (none when it has no activity).
            if let t = req.timer { r.activities = r.activities?.filter { $0.activity.timerID == t } }
            r.status = daemonStatus()
            return .now(r)
        case .watch:
            // Over MQTT the activity topics are the stream: the answer is the snapshot alone.
            client?.watching = true
            var r = snapshot(now: now)
            r.event = "snapshot"
            return .now(r)
        case .press:
            let edges = try buttons.press(req.button ?? "", holdMilliseconds: UInt64(req.holdMilliseconds))
            var r = snapshot(now: ctx.clock.now())
            r.pressMonotonicMicroseconds = edges.pressNanoseconds / 1000
            r.releaseMonotonicMicroseconds = edges.releaseNanoseconds / 1000
            return .now(r)
        case .start:
            return try change(.start(req.start.attributes(timer: req.timer, defaults: session)))
        case .toggle:
            var attrs = session.attributes
            if let t = req.timer { attrs.timerID = t }
            return try change(.toggle(default: attrs))
        case .pause: return try change(.pause)
        case .resume: return try change(.resume)
        case .reset: return try change(.reset)
        case .expand: return try change(.expand)
        case .end: return try change(.end(req.dismissal.policy(now: now)))
        case .testPattern:
            panel.showTestPattern(seconds: req.patternSeconds)
            ctx.log.info(req.patternSeconds == 0 ? "test pattern ended" : "test pattern for \(req.patternSeconds) s")
            broadcastChange(now: now)
            refreshDisplay(now: now)
            return .now(snapshot(now: ctx.clock.now()))
        }
    }

    // MARK: MQTTBridgeDelegate

    func answer(brokerRequest req: ControlRequest) -> Clients.Reply {
        do { return try handle(req, client: nil, now: ctx.clock.now()) }
        catch { return .now(.failure(error)) }
    }

    var activitiesNow: (activities: [Activity], now: Instant) { (book.activities, ctx.clock.now()) }

    // MARK: SyncGroupDelegate

    func syncAdopt(_ record: SyncRecord) {
        let now = ctx.clock.now()
        // Time's own transitions since the change, computed here from the same wall instants;
        // they do not chime: the moments passed on the display that made the change.
        let activity = TimerMachine.advance(record.activity, to: now).activity
        do { try book.adopt(record.timerID, activity: activity) }
        catch {
            ctx.log.limited(.warning, topic: "sync-adopt", nowMs: ctx.mono.milliseconds,
                            "sync: \(record.revision.device)'s state of timer \"\(record.timerID)\" is not shown: \(error.message)")
            return
        }
        if let until = record.expandedUntil, until > now { panel.expand(record.timerID, until: until) }
        ctx.log.debug("sync: timer \(record.timerID) now \(activity?.phase.rawValue ?? "gone"), from \(record.revision.device)")
        broadcastChange(now: now)
    }

    var syncActivities: [Activity] { book.activities }

    func syncMark(_ timerID: String, stale: Bool) {
        // Fresh again only what the clock watch does not hold stale for its own reason.
        if !stale, clockWatch.isBehind { return }
        perform(stale ? .markStale : .markFresh, timer: timerID, now: ctx.clock.now())
    }

    // MARK: what clients and systemd are told

    func snapshot(now: Instant) -> ControlResponse {
        let (presentation, timers) = panel.shown(book.activities, now: now)
        return ControlResponse(ok: true, event: nil, activities: book.activities.map { ActivityReport(activity: $0, now: now) },
                               presentation: presentation, shownTimers: timers, status: nil, error: nil, now: now)
    }

    func broadcastChange(now: Instant) {
        var r = snapshot(now: now)
        r.event = "change"
        clients.broadcast(r)
        // Published at the end of the turn, after the frame is on the bus.
        mqtt?.changed = true
        systemd.status(statusText())
    }

    func daemonStatus() -> DaemonStatus {
        let config = ctx.config
        let counters = panel.counters
        return DaemonStatus(pid: Int(Identity.processID), version: IsletVersion.string,
                            uptimeSeconds: Double(ctx.mono.nanoseconds(since: ctx.startedAt)) / 1e9,
                            wakeups: loop.turns, frames: counters.frames, busBytes: counters.busBytes, busErrors: counters.busErrors,
                            panelPresent: panel.ready, panelOn: panel.displayIsOn, bus: config.bus.description,
                            size: "\(config.width)x\(config.height)",
                            presentation: panel.shown(book.activities, now: ctx.clock.now()).presentation,
                            clients: clients.count, storeError: book.storeError,
                            clockBehind: clockWatch.isBehind,
                            chimePulses: chime.reportedPulses, panel: panel.visibleImage, mqtt: mqtt?.status(),
                            sync: sync?.status())
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
