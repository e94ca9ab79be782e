import IsletMQTT

/// The systemd drop-in that opens the unit's network for `[mqtt]` and nothing more
/// (docs/MQTT.md, "The systemd unit"). The unit closes the network; this adds the inet
/// families and allows the broker's address, or, for a broker named by host name, the ranges
/// where a home's broker and DNS server live (or `[mqtt] allow`). Pure: text in, text out.
public enum NetworkDropIn {
    /// The ranges allowed for a broker named by a host name when `allow` is not set: the
    /// machine itself (a local resolver such as systemd-resolved's 127.0.0.53) and the private
    /// and link-local ranges a home network uses for its broker and its DNS server.
    static let homeRanges = ["localhost", "link-local", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]

    /// The drop-in for `settings`; nil when there is no `[mqtt]` (the unit stays closed).
    public static func text(for settings: MQTTSettings?, configPath: String) -> String? {
        guard let s = settings, let url = s.url else { return nil }
        let allowed: [String]
        let families: String
        if let list = s.allow {
            allowed = list
            families = "AF_UNIX AF_INET AF_INET6"
        } else if url.isNumeric {
            allowed = [url.host]
            families = url.host.contains(":") ? "AF_UNIX AF_INET6" : "AF_UNIX AF_INET"
        } else {
            allowed = homeRanges
            families = "AF_UNIX AF_INET AF_INET6"
        }
        return """
        # Written by `isletd --network-dropin` from \(configPath): [mqtt] url = \(url).
        # Opens the network for the MQTT broker only; without [mqtt] this file is removed and
        # the unit has no network at all. Edit [mqtt] allow, not this file.
        [Service]
        PrivateNetwork=no
        RestrictAddressFamilies=\(families)
        IPAddressAllow=\(allowed.joined(separator: " "))

        """
    }

    /// Whether `entry` is something IPAddressAllow= takes: an address, a CIDR range, or one of
    /// systemd's names for ranges.
    static func isValidAllowEntry(_ entry: String) -> Bool {
        if ["any", "localhost", "link-local", "multicast"].contains(entry) { return true }
        let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return false }
        let address = parts[0]
        let v4 = address.split(separator: ".", omittingEmptySubsequences: false)
        let isV4 = v4.count == 4 && v4.allSatisfy { UInt8($0) != nil }
        let isV6 = address.contains(":") && address.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        guard isV4 || isV6 else { return false }
        if parts.count == 2 {
            guard let bits = Int(parts[1]), (0...(isV4 ? 32 : 128)).contains(bits) else { return false }
        }
        return true
    }
}
