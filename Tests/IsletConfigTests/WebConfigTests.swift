import IsletSettings
import IsletNetwork
import IsletWeb
import IsletDaemon
import Testing
import Foundation
import IsletConfig
import IsletMQTT

/// `[web]`: off unless the section is there, loopback by default, and no way to put a page that
/// drives the timer on the network without a password or read-only (docs/WEB.md).
@Suite("[web] settings")
struct WebConfigTests {
    @Test("no section, no page; an empty section is loopback port 8080")
    func defaults() throws {
        #expect(try DaemonConfig(parts: PartRegistry.settings).parsing("[display]\nbus = mock\n", file: "t.conf").parts[WebSettings.self] == nil)
        let web = try #require(try DaemonConfig(parts: PartRegistry.settings).parsing("[web]\n", file: "t.conf").validated(origin: "t.conf").parts[WebSettings.self])
        #expect(web.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(web.listen.isLoopback && !web.readOnly && web.passwordFile == nil && !web.tls)
    }

    @Test("listen takes IPv4 and IPv6 literals with a port, nothing else", arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080, true), ("0.0.0.0:80", "0.0.0.0", 80, false),
        ("[::1]:8080", "::1", 8080, true), ("[::]:8080", "::", 8080, false), ("[fd00::5]:9000", "fd00::5", 9000, false),
    ])
    func listen(text: String, host: String, port: Int, loopback: Bool) throws {
        let a = try #require(ListenAddress.parse(text))
        #expect(a.host == host && Int(a.port) == port && a.isLoopback == loopback)
        #expect(a.description == text, "it prints as written")
    }

    @Test("listen refuses host names, missing or absurd ports, and malformed addresses", arguments: [
        "localhost:8080", "islet.local:8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:99999999999",
        "256.0.0.1:80", "1.2.3:80", "::1:8080", "[::1]", "[::1]8080", "[g::1]:80", "[1:2:3:4:5:6:7:8:9]:80", "[1::2::3]:80",
        ":8080", "127.0.0.1:+80", "127.0.0.1:8080 ", "",
    ])
    func badListen(text: String) {
        #expect(ListenAddress.parse(text) == nil, "\(text) was taken")
    }

    @Test("a bad key names its line and what is accepted")
    func errorsNameTheLine() throws {
        let e = try #require(configError("[display]\nbus = mock\n[web]\nlisten = localhost:8080\n"))
        #expect(e.origin == "t.conf:4" && e.message.contains("ADDRESS:PORT"))
        #expect(try #require(configError("[web]\nread_only = maybe\n")).origin == "t.conf:2")
        #expect(try #require(configError("[web]\nhostnames = bad_name!\n")).message.contains("host names"))
        #expect(try #require(configError("[web]\nport = 80\n")).message.contains("accepted: listen, password_file"))
        #expect(try #require(configError("[web]\npassword_file = relative\n")).message.contains("absolute"))
        #expect(configError("[web]\nhostnames = islet.example.net, desk.lan\nallow = 192.168.0.0/16\n") == nil)
    }

    @Test("a page on the network needs a password or read-only, and says why")
    func networkNeedsAPassword() throws {
        let e = try #require(configError("[web]\nlisten = 0.0.0.0:8080\n"))
        #expect(e.origin == "t.conf:2")
        #expect(e.message.contains("anyone on the network could drive the timer") && e.message.contains("password_file"))
        #expect(configError("[web]\nlisten = 0.0.0.0:8080\nread_only = on\n") == nil)
        #expect(configError("[web]\nlisten = [::1]:8080\n") == nil, "IPv6 loopback is this machine too")
        let dir = NSTemporaryDirectory() + "web-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pw = dir + "/web.password"
        try "s3cret\n".write(toFile: pw, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: pw)
        let open = try #require(configError("[web]\nlisten = 0.0.0.0:8080\npassword_file = \(pw)\n"))
        #expect(open.origin == "t.conf:3" && open.message.contains("web.password_file") && open.message.contains("readable by every user"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pw)
        #expect(configError("[web]\nlisten = 0.0.0.0:8080\npassword_file = \(pw)\n") == nil)
        #expect(try #require(configError("[web]\npassword_file = \(dir)/missing\n")).message.contains("No such file"))
        #expect(try #require(configError("[web]\ncert_file = \(pw)\n")).message.contains("go together"))
    }

    @Test("the drop-in opens the page's family and ranges, and the broker's, and nothing more")
    func dropIn() throws {
        #expect(networkDropIn(mqtt: nil, web: nil) == nil)
        var web = WebSettings()
        let local = try #require(networkDropIn(mqtt: nil, web: web))
        // Without a password the page asks the kernel (NETLINK_SOCK_DIAG) who owns each client's socket.
        #expect(local.contains("\nRestrictAddressFamilies=AF_UNIX AF_INET AF_NETLINK\n") && local.contains("\nIPAddressAllow=localhost\n"))
        web.passwordFile = "/etc/islet/web.password"
        let guarded = try #require(networkDropIn(mqtt: nil, web: web))
        #expect(guarded.contains("\nRestrictAddressFamilies=AF_UNIX AF_INET\n"), "with a password: no netlink")
        web.passwordFile = nil
        web.readOnly = true
        #expect(try #require(networkDropIn(mqtt: nil, web: web)).contains("\nRestrictAddressFamilies=AF_UNIX AF_INET\n"),
                "read only: no netlink")
        web.readOnly = false
        web.listen = try #require(ListenAddress.parse("0.0.0.0:8080"))
        let lan = try #require(networkDropIn(mqtt: nil, web: web))
        #expect(lan.contains("\nIPAddressAllow=localhost link-local 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7\n"))
        web.listen = try #require(ListenAddress.parse("[::]:8080"))
        web.allow = ["fd00::/8"]
        let six = try #require(networkDropIn(mqtt: nil, web: web))
        #expect(six.contains("\nRestrictAddressFamilies=AF_UNIX AF_INET6\n") && six.contains("\nIPAddressAllow=fd00::/8\n"))
        var m = MQTTSettings()
        m.url = BrokerURL(host: "192.168.1.10", port: 1883, tls: false)
        let both = try #require(networkDropIn(mqtt: m, web: web))
        #expect(both.contains("\nRestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\n"))
        #expect(both.contains("\nIPAddressAllow=192.168.1.10 fd00::/8\n"))
        #expect(both.contains("[mqtt] url = mqtt://192.168.1.10:1883, [web] listen = [::]:8080"))
    }

    @Test("the page's address: the listen address, or the machine's name on mDNS for a wildcard")
    func pageURL() throws {
        var web = WebSettings()
        #expect(web.pageURL(machineName: "islet") == "http://127.0.0.1:8080/")
        web.listen = try #require(ListenAddress.parse("0.0.0.0:8080"))
        #expect(web.pageURL(machineName: "islet") == "http://islet.local:8080/")
        #expect(web.pageURL(machineName: "islet.example.net") == "http://islet.example.net:8080/")
        #expect(web.pageURL(machineName: "") == "http://localhost:8080/")
        web.listen = try #require(ListenAddress.parse("[fd00::5]:443"))
        web.certFile = "/etc/islet/cert.pem"
        web.keyFile = "/etc/islet/key.pem"
        #expect(web.pageURL(machineName: "islet") == "https://[fd00::5]:443/")
    }

    @Test("Home Assistant's link: none on loopback; else the first host name, the machine's mDNS name, or the listen address")
    func advertisedURL() throws {
        var web = WebSettings()
        #expect(web.advertisedURL(machineName: "islet") == nil)   // 127.0.0.1: only this machine reaches it
        web.listen = try #require(ListenAddress.parse("[::1]:8080"))
        web.hostnames = ["desk.lan"]
        #expect(web.advertisedURL(machineName: "islet") == nil)
        web.listen = try #require(ListenAddress.parse("0.0.0.0:8080"))
        #expect(web.advertisedURL(machineName: "islet") == "http://desk.lan:8080/")
        web.hostnames = []
        #expect(web.advertisedURL(machineName: "islet") == "http://islet.local:8080/")
        #expect(web.advertisedURL(machineName: "islet.example.net") == "http://islet.example.net:8080/")
        #expect(web.advertisedURL(machineName: "") == nil)   // a wildcard and no name: no address to give
        web.listen = try #require(ListenAddress.parse("192.168.1.10:8080"))
        #expect(web.advertisedURL(machineName: "") == "http://192.168.1.10:8080/")
        web.listen = try #require(ListenAddress.parse("[fd00::5]:443"))
        web.certFile = "/etc/islet/cert.pem"
        web.keyFile = "/etc/islet/key.pem"
        #expect(web.advertisedURL(machineName: "") == "https://[fd00::5]:443/")
        #expect(web.advertisedURL(machineName: "islet") == "https://islet.local:443/")
    }
}
