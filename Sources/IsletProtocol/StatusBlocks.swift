/// The part blocks of `status` that clients read, by the key each part writes (docs/PROTOCOL.md):
/// the wire format clients have always had, read from `DaemonStatus.parts`.
extension DaemonStatus {
    /// Control-socket clients connected (the socket's part).
    public var clients: Int { block("clients") ?? 0 }
    /// The wall clock is behind the last save: restored activities show stale (the clock watch).
    public var clockBehind: Bool { block("clock_behind") ?? false }
    /// Times the chime was switched on since start; absent without a chime.
    public var chimePulses: Int? { block("chime_pulses") }
    /// Night mode and the panel's contrast.
    public var night: NightStatus? { block("night") }
    /// The MQTT bridge; absent without `[mqtt]`.
    public var mqtt: MQTTStatus? { block("mqtt") }
    /// The sync group; absent without `[sync]`.
    public var sync: SyncStatus? { block("sync") }
    /// The web page; absent without `[web]`.
    public var web: WebStatus? { block("web") }
}
