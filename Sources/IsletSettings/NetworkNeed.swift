/// What a part opens of the systemd unit's network (docs/MQTT.md, "The systemd unit"): the
/// unit closes it; the drop-in adds each part's address families and allowed ranges, and
/// nothing more. Pure: settings in, text out.
public struct NetworkNeed: Sendable, Equatable {
    public var families: [String]
    public var allowed: [String]
    /// Why, as the drop-in's comment says it ("[mqtt] url = mqtt://…").
    public var reason: String
    /// Whom the unit may reach, in words ("the broker mqtt://…").
    public var reach: String

    public init(families: [String], allowed: [String], reason: String, reach: String) {
        self.families = families
        self.allowed = allowed
        self.reason = reason
        self.reach = reach
    }

    /// The ranges allowed for a server named by a host name when `allow` is not set: the
    /// machine itself (a local resolver such as systemd-resolved's 127.0.0.53) and the private
    /// and link-local ranges a home network uses for its broker and its DNS server.
    public static let homeRanges = ["localhost", "link-local", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]

    /// Whether `entry` is something IPAddressAllow= takes: an address, a CIDR range, or one of
    /// systemd's names for ranges.
    public static func isValidAllowEntry(_ entry: String) -> Bool {
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

    /// The drop-in for these needs; nil when there are none (the unit stays closed).
    public static func dropIn(_ needs: [NetworkNeed], configPath: String) -> String? {
        guard !needs.isEmpty else { return nil }
        var families: [String] = []
        var allowed: [String] = []
        for n in needs {
            for x in n.families where !families.contains(x) { families.append(x) }
            for x in n.allowed where !allowed.contains(x) { allowed.append(x) }
        }
        let order = ["AF_INET", "AF_INET6", "AF_NETLINK"]
        families.sort { order.firstIndex(of: $0) ?? order.count < order.firstIndex(of: $1) ?? order.count }
        return """
        # Written by `isletd --network-dropin` from \(configPath): \(needs.map(\.reason).joined(separator: ", ")).
        # Opens the network for these sections only; without [mqtt] and [web] this file is
        # removed and the unit has no network at all. Edit their allow keys, not this file.
        [Service]
        PrivateNetwork=no
        RestrictAddressFamilies=AF_UNIX \(families.joined(separator: " "))
        IPAddressAllow=\(allowed.joined(separator: " "))

        """
    }
}
