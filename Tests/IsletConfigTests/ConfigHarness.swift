import IsletConfig

/// The error a config text gives, parsed and validated as `isletd` does; nil when it is good.
func configError(_ text: String, file: String = "t.conf") -> ConfigError? {
    do {
        _ = try DaemonConfig().parsing(text, file: file).validated(origin: file)
        return nil
    } catch {
        return error
    }
}
