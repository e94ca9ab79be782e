import IsletSystem
import IsletCore

/// The host's local time zone, found as glibc finds it: `TZ` unset, `/etc/localtime`; `TZ`
/// empty, UTC; `TZ=:Name` or `TZ=Name`, the file `Name` under `TZDIR` (else
/// /usr/share/zoneinfo), or an absolute path; a name that is no file may be a TZ string
/// (`EST5EDT,M3.2.0,M11.1.0`). Whatever cannot be read leaves UTC, with a word for the log.
/// The reads are passed in, so the choice is tested without the machine's files.
package struct HostZone {
    package let zone: LocalZone
    /// What was read (`Europe/Berlin`, `/etc/localtime`, the TZ string) or `UTC`.
    package let name: String
    /// Why the zone is UTC when something else was asked for.
    package let problem: String?

    package static func load(environment: (String) -> String? = Posix.environment,
                     read: (String) -> Result<[UInt8], SystemError> = { FileSystem.readFile($0, limit: LocalZone.maximumBytes + 1) }) -> HostZone {
        func file(_ path: String, name: String) -> HostZone? {
            switch read(path) {
            case .failure: return nil
            case .success(let bytes):
                do { return HostZone(zone: try LocalZone(tzif: bytes), name: name, problem: nil) }
                catch { return HostZone(zone: .utc, name: "UTC", problem: "\(path) is not a time zone file (\(error)); night times are UTC") }
            }
        }
        guard var tz = environment("TZ") else {
            return file("/etc/localtime", name: "/etc/localtime")
                ?? HostZone(zone: .utc, name: "UTC", problem: nil)   // no /etc/localtime: UTC, as glibc
        }
        if tz.isEmpty { return HostZone(zone: .utc, name: "UTC", problem: nil) }
        if tz.hasPrefix(":") { tz.removeFirst() }
        // A name climbing out of the zone directory is not a zone (glibc refuses it too).
        let climbs = tz.split(separator: "/").contains("..")
        if !climbs, tz.utf8.count <= 255, !tz.contains("\0") {
            let dir = environment("TZDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
            if let z = file(tz.hasPrefix("/") ? tz : "\(dir)/\(tz)", name: tz) { return z }
        }
        if let rule = ZoneRule(parsing: Array(tz.utf8)) { return HostZone(zone: LocalZone(rule: rule), name: tz, problem: nil) }
        return HostZone(zone: .utc, name: "UTC", problem: "TZ=\(tz) names no zone file and is no TZ string; night times are UTC")
    }
}
