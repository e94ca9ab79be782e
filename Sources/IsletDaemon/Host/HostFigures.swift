import IsletSystem

/// The machine's own figures, as `status` reports them under `host`: how long it has been up
/// and its load averages (a Pi that rebooted at night, or one a backup keeps busy, shows here).
package struct HostFigures: Codable, Equatable, Sendable {
    package var uptimeSeconds: Int
    /// Runnable and waiting tasks over 1, 5 and 15 minutes, to two decimals as uptime(1) shows them.
    package var load: [Double]

    enum CodingKeys: String, CodingKey {
        case uptimeSeconds = "uptime_seconds", load
    }

    package init(_ l: HostLoad) {
        uptimeSeconds = l.uptimeSeconds
        load = l.averages.map { ($0 * 100).rounded() / 100 }
    }
}
