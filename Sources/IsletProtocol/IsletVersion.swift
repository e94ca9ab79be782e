/// The version isletd and isletctl report (and the daemon puts in `status`).
public enum IsletVersion {
    public static let string = "0.1.0"
}
