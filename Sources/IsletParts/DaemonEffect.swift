import IsletCore

/// What a change of the activities asks of the rest of the daemon, as a value. `perform`, the
/// advance of time and the group's records produce them (`DaemonEffect.of`, pure); the daemon hands
/// each to the panel and the parts as it happens (`Daemon.dispatch`), and what goes out
/// (the frame, answers, watchers, the network, systemd) runs once at the end of the turn.
package enum DaemonEffect: Equatable {
    /// The panel shows this timer's expanded presentation until then.
    case expand(timer: String, until: Instant)
    /// A person's change on this display: its record goes to the sync group (the activity as
    /// the change left it).
    case share(timer: String, activity: Activity?, expandedUntil: Instant?)
    /// Another display's change, taken from the group (the same path as every other change).
    case adopted(timer: String)
    /// A new activity of this timer: what the clock watch held stale for the old one is not its own.
    case started(timer: String)
    /// A transition, which may sound the chime.
    case transition(Transition, timer: String)
    /// Watchers, the network and systemd must learn the new state at the end of the turn.
    case announce

    /// The effects of an intent applied to the book: pure, so the rule is tested on its own.
    /// `activity` is the timer's activity after the change.
    package static func of(_ intent: Intent, change: ManagerChange, changed: Bool, activity: Activity?,
                   now: Instant, expandSeconds: Int) -> [DaemonEffect] {
        let timer = change.timerID
        // A pushed update with `alert` asks for the same expanded view a long press does.
        let expanded = change.transition.effects.contains(.expanded) || change.transition.effects.contains(.alerted)
        let until = expanded ? now + .seconds(expandSeconds) : nil
        var out: [DaemonEffect] = []
        if let until { out.append(.expand(timer: timer, until: until)) }
        // Marking stale is each display's own judgement of its clock, not the group's state.
        if intent.isSharedChange, changed || expanded {
            out.append(.share(timer: timer, activity: activity, expandedUntil: until))
        }
        if change.transition.effects.contains(.started) { out.append(.started(timer: timer)) }
        out.append(.transition(change.transition, timer: timer))
        out.append(.announce)
        return out
    }

    /// The effects of a change made elsewhere, taken here: the panel expands when the change
    /// says so; no chime (the moment passed where the change was made).
    package static func of(outside change: OutsideChange, now: Instant) -> [DaemonEffect] {
        var out: [DaemonEffect] = []
        if let until = change.expandedUntil, until > now { out.append(.expand(timer: change.timer, until: until)) }
        out.append(.adopted(timer: change.timer))
        out.append(.announce)
        return out
    }
}
