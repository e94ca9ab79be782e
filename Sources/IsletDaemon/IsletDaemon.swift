import IsletCore

/// The daemon library: config, control socket, persistence, scheduler (filled in by the daemon work).
public enum IsletVersion {
    public static let string = "0.1.0"
}
