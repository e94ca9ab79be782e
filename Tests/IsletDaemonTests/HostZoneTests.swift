import Testing
import IsletCore
import IsletSystem
import IsletDaemon

/// Which zone the night is in, chosen as glibc chooses (tzset(3)): the reads are injected, the
/// files are the system's tzdata.
@Suite struct HostZoneTests {
    static func read(_ path: String) -> Result<[UInt8], SystemError> {
        FileSystem.readFile(path, limit: LocalZone.maximumBytes + 1)
    }

    static func load(_ env: [String: String], files: [String: [UInt8]] = [:]) -> HostZone {
        HostZone.load(environment: { env[$0] }, read: { path in
            if let b = files[path] { return .success(b) }
            return files.isEmpty ? read(path) : .failure(SystemError("open \(path)", .noSuchFileOrDirectory))
        })
    }

    static let july = Instant(milliseconds: 1_782_900_000_000)   // 2026-07-01T10:00:00Z

    @Test func theZoneComesFromTZOrLocaltime() {
        #expect(Self.load(["TZ": "Europe/Berlin"]).zone.utcOffset(at: Self.july) == 7200)
        #expect(Self.load(["TZ": ":America/New_York"]).zone.utcOffset(at: Self.july) == -14400)
        #expect(Self.load(["TZ": "/usr/share/zoneinfo/Asia/Tokyo"]).zone.utcOffset(at: Self.july) == 32400)
        let rule = Self.load(["TZ": "EST5EDT,M3.2.0,M11.1.0"])
        #expect(rule.zone.utcOffset(at: Self.july) == -14400 && rule.problem == nil)
        #expect(Self.load(["TZ": ""]).name == "UTC")
        // TZ unset: /etc/localtime (here a made-up one: Tokyo's bytes).
        let tokyo = Self.read("/usr/share/zoneinfo/Asia/Tokyo")
        if case .success(let bytes) = tokyo {
            let z = Self.load([:], files: ["/etc/localtime": bytes])
            #expect(z.name == "/etc/localtime" && z.zone.utcOffset(at: Self.july) == 32400)
        } else { Issue.record("no Asia/Tokyo in tzdata") }
    }

    @Test func whatIsNoZoneLeavesUTCWithAReason() {
        let climbing = Self.load(["TZ": "../../../etc/passwd"])
        #expect(climbing.name == "UTC" && climbing.problem != nil)
        let garbage = Self.load(["TZ": "Nowhere/Zone"], files: ["/usr/share/zoneinfo/Nowhere/Zone": Array("not a zone".utf8)])
        #expect(garbage.name == "UTC" && garbage.problem?.contains("not a time zone file") == true)
        #expect(Self.load([:], files: ["/x": []]).problem == nil, "no /etc/localtime: UTC, as glibc, no complaint")
    }
}
