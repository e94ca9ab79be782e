import IsletSettings

extension DaemonConfig {
    /// The configuration a reload puts in force, and the names of what waits for a restart:
    /// what the running daemon cannot change in place (the socket, the state directory, the
    /// panel, the GPIO lines it holds) keeps its old value.
    public func reloaded(with new: DaemonConfig) -> (config: DaemonConfig, waitingForRestart: [String]) {
        var changed: [String] = []
        if new.socketPath != socketPath || new.socketMode != socketMode || new.socketGroup != socketGroup { changed.append("socket") }
        if new.stateDir != stateDir { changed.append("state_dir") }
        if new.bus != bus || new.address != address || new.controller != controller
            || new.width != width || new.height != height || new.rotation != rotation
            || new.panelAdjustments != panelAdjustments
            || new.transport != transport { changed.append("panel") }
        if new.buttons != buttons { changed.append("buttons") }
        if new.capture != capture || new.preview != preview { changed.append("capture and preview") }
        let parts = parts.reloaded(with: new.parts)
        changed += parts.waiting
        var kept = new
        kept.parts = parts.kept
        kept.socketPath = socketPath; kept.socketMode = socketMode; kept.socketGroup = socketGroup
        kept.stateDir = stateDir; kept.bus = bus; kept.address = address
        kept.controller = controller; kept.width = width; kept.height = height
        kept.rotation = rotation
        // The day's contrast reloads: it is one 81h command (Panel.reload, night mode), no new panel.
        kept.panelAdjustments = panelAdjustments
        kept.transport = transport
        kept.capture = capture; kept.preview = preview; kept.mockUnplug = mockUnplug
        kept.buttons = buttons
        if new.buttonConfig.lines != buttonConfig.lines || new.buttonConfig.chip != buttonConfig.chip
            || new.buttonConfig.bias != buttonConfig.bias || new.buttonConfig.activeLow != buttonConfig.activeLow {
            kept.buttonConfig = buttonConfig
            changed.append("button lines")
        }
        // The chime's line was opened at start: its patterns reload, the line waits for a restart.
        let oldChime = buttonConfig.chime
        if new.buttonConfig.chime.line != oldChime.line || new.buttonConfig.chime.chip != oldChime.chip
            || new.buttonConfig.chime.activeLow != oldChime.activeLow {
            kept.buttonConfig.chime.line = oldChime.line
            kept.buttonConfig.chime.chip = oldChime.chip
            kept.buttonConfig.chime.activeLow = oldChime.activeLow
            changed.append("chime line")
        }
        return (kept, changed)
    }
}
