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
        text(mqtt: settings, web: nil, configPath: configPath)
    }

    /// The drop-in for `[mqtt]` and `[web]` together; nil when neither is set (the unit stays
    /// closed). Each section adds the families and ranges it needs, and nothing more.
    public static func text(mqtt: MQTTSettings?, web: WebSettings?, configPath: String) -> String? {
        var families: [String] = []
        var allowed: [String] = []
        var why: [String] = []
        func add(_ f: [String], _ a: [String]) {
            for x in f where !families.contains(x) { families.append(x) }
            for x in a where !allowed.contains(x) { allowed.append(x) }
        }
        if let s = mqtt, let url = s.url {
            why.append("[mqtt] url = \(url)")
            if let list = s.allow {
                add(["AF_INET", "AF_INET6"], list)
            } else if url.isNumeric {
                add([url.host.contains(":") ? "AF_INET6" : "AF_INET"], [url.host])
            } else {
                add(["AF_INET", "AF_INET6"], homeRanges)
            }
        }
        if let w = web {
            why.append("[web] listen = \(w.listen)")
            let family = w.listen.isIPv6 ? "AF_INET6" : "AF_INET"
            // `[::]` takes IPv4 clients too (as mapped addresses): the socket is AF_INET6 alone.
            if let list = w.allow { add([family], list) }
            else if w.listen.isLoopback { add([family], ["localhost"]) }
            else { add([family], homeRanges) }
        }
        guard !why.isEmpty else { return nil }
        // A page without a password admits only the socket's group: it asks the kernel (a
        // NETLINK_SOCK_DIAG socket) who owns each client's socket.
        if web?.checksPeers == true { families.append("AF_NETLINK") }
        let order = ["AF_INET", "AF_INET6", "AF_NETLINK"]
        families.sort { order.firstIndex(of: $0) ?? 0 < order.firstIndex(of: $1) ?? 0 }
        return """
        # Written by `isletd --network-dropin` from \(configPath): \(why.joined(separator: ", ")).
        # Opens the network for these sections only; without [mqtt] and [web] this file is
        # removed and the unit has no network at all. Edit their allow keys, not this file.
        [Service]
        PrivateNetwork=no
        RestrictAddressFamilies=AF_UNIX \(families.joined(separator: " "))
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
