import Foundation
import IsletCore
import IsletDaemon
import Testing
import IsletTestSupport

/// A datagram socket standing in for systemd's $NOTIFY_SOCKET.
final class NotifyListener {
    let path: String
    let fd: Int32
    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else { throw HarnessError("bind \(path)") }
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    deinit { close(fd) }

    /// Every message received within `seconds`, or until `enough` holds for those received.
    func messages(for seconds: Double, until enough: ([String]) -> Bool = { _ in false }) -> [String] {
        var out: [String] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, !enough(out) {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { out.append(String(decoding: buf[0..<n], as: UTF8.self)) }
        }
        return out
    }
}

@Suite("isletd and systemd, clocks across restarts", .offPool, .timeLimit(.minutes(2)))
struct DaemonSystemTests {
    @Test("READY after start, STATUS on changes, WATCHDOG at half the interval, STOPPING on SIGTERM")
    func notify() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let listener = try NotifyListener(path: dir + "/notify")
        let d = try DaemonUnderTest(env: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "600000"], dir: dir)
        #expect(d.ctl("start", "--seconds", "30").status == 0)
        // 600 ms watchdog: a ping every 300 ms, so 1.2 s holds at least three (read until then).
        let first = listener.messages(for: 1.2) { got in
            let all = got.joined(separator: "\n")
            return all.contains("READY=1") && all.contains("STATUS=meditation running") && got.filter { $0 == "WATCHDOG=1" }.count >= 3
        }
        let joined = first.joined(separator: "\n")
        #expect(joined.contains("READY=1"))
        #expect(joined.contains("STATUS=meditation running"), "\(first)")
        let pings = first.filter { $0 == "WATCHDOG=1" }.count
        #expect(pings >= 3, "\(pings) watchdog pings in 1.2 s")
        #expect(d.stop() == 0)
        #expect(listener.messages(for: 0.3) { $0.contains("STOPPING=1") }.contains("STOPPING=1"))
    }

    @Test("a clock behind the last save shows restored activities stale until it catches up (libfaketime)")
    func clockBehindAfterRestart() throws {
        guard let lib = faketimeLibrary() else {
            Issue.record("libfaketime is not installed (Debian package faketime)")
            return
        }
        let dir = makeTempDir()
        defer { removeTree(dir) }
        let d = try DaemonUnderTest(dir: dir)
        #expect(d.ctl("start", "--seconds", "120").status == 0)
        #expect(d.stop() == 0)
        // The next boot's clock is 3 s behind the last save (a Pi without a real-time clock).
        // A reboot: a new boot id, so the wall clock is all there is (in the same boot the boot
        // clock would carry the timeline, see ClockRestartTests).
        let path = d.stateDir + "/activities.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let rebooted = text.replacingOccurrences(of: #""boot_id":""#, with: #""boot_id":"rebooted-"#)
        #expect(rebooted != text)
        try rebooted.write(toFile: path, atomically: false, encoding: .utf8)
        let behind = try DaemonUnderTest(env: ["LD_PRELOAD": lib, "FAKETIME": "-3", "DONT_FAKE_MONOTONIC": "1"], dir: dir)
        let s = try behind.status()
        #expect(s.status?.clockBehind == true)
        #expect(s.activity("meditation")?.content.isStale == true, "shown stale while the clock is behind")
        // Caught up once 3 s have passed (the save was a moment before this start): at most 3.5 s.
        let caughtUpBy = Date().addingTimeInterval(3.5)
        var later = try behind.status()
        while later.status?.clockBehind == true, Date() < caughtUpBy {
            sleepSeconds(0.05)
            later = try behind.status()
        }
        #expect(later.status?.clockBehind == false, "the timeline has passed the last save")
        #expect(later.activity("meditation")?.content.isStale == false, "no longer stale")
        #expect(later.activity("meditation")?.phase == .running)
    }

    @Test("a corrupt state file is reported and moved aside; the daemon starts empty")
    func corruptStateFile() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        try "{\"schema\":1,\"activities\":[tru".write(toFile: dir + "/state/activities.json", atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(dir: dir)
        #expect(try d.status().activities?.isEmpty == true)
        #expect(d.log_().contains("moved aside"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/state")
        #expect(files.contains { $0.hasPrefix("activities.json.bad-") })
        #expect(d.ctl("start", "--seconds", "30").status == 0, "and works normally")
        #expect(FileManager.default.fileExists(atPath: dir + "/state/activities.json"))
    }

    @Test("not root: socket and state default to the XDG directories, and isletctl finds the socket there")
    func userDefaults() throws {
        let dir = makeTempDir()
        defer { removeTree(dir) }
        chmod(dir, 0o777)
        let runtime = dir + "/run", state = dir + "/state"
        for d in [runtime, state] {
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            chmod(d, 0o777)
        }
        let env = ["XDG_RUNTIME_DIR=" + runtime, "XDG_STATE_HOME=" + state, "HOME=" + dir, "PATH=/usr/bin:/bin"]
        // As root, drop to nobody so the non-root defaults apply.
        func command(_ program: String, _ args: [String]) -> (String, [String]) {
            if getuid() == 0 {
                return ("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups", "env", "-i"] + env + [program] + args)
            }
            return ("/usr/bin/env", ["-i"] + env + [program] + args)
        }
        let (p, a) = command(getuid() == 0 ? OtherUserBinaries.isletd : Repo.isletd, ["--bus", "mock"])
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: p)
        daemon.arguments = a
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() }
        let socket = runtime + "/islet/islet.sock"
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { sleepSeconds(0.025) }
        #expect(FileManager.default.fileExists(atPath: socket), "the socket is in $XDG_RUNTIME_DIR/islet")
        let (cp, ca) = command(getuid() == 0 ? OtherUserBinaries.isletctl : Repo.isletctl, ["start", "--seconds", "30"])
        let r = runProgram(cp, ca)
        #expect(r.status == 0, "isletctl found the socket without --socket: \(r.err)")
        #expect(FileManager.default.fileExists(atPath: state + "/islet/activities.json"), "the state is in $XDG_STATE_HOME/islet")
    }

    @Test("a client outside the socket's group is told which group to join (exit 69)",
          .enabled(if: getuid() == 0, "needs root to run isletctl as another user"))
    func permissionDenied() throws {
        let d = try DaemonUnderTest()
        chmod(d.dir, 0o755)   // the directory may be searched; the 0660 socket itself refuses
        let r = runProgram("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                OtherUserBinaries.isletctl, "--socket", d.socket, "status"])
        #expect(r.status == 69, "\(r.err)")
        // The message names the group the socket really has (here the test's own, not islet).
        var st = stat()
        #expect(stat(d.socket, &st) == 0)
        let group = try #require(getgrgid(st.st_gid).map { String(cString: $0.pointee.gr_name) })
        #expect(r.err.contains("permission denied") && r.err.contains("usermod -aG \(group)"), "\(r.err)")
    }

    @Test("without $XDG_RUNTIME_DIR the /tmp fallback for the socket must be the user's own directory",
          .enabled(if: getuid() == 0, "needs root to run isletd as another user"))
    func tmpFallbackMustBePrivate() throws {
        let fallback = "/tmp/islet-65534"
        try? FileManager.default.removeItem(atPath: fallback)
        mkdir(fallback, 0o777)
        chmod(fallback, 0o777)   // made by someone else (root here), writable by all: not nobody's
        defer { try? FileManager.default.removeItem(atPath: fallback) }
        let dir = makeTempDir()
        defer { removeTree(dir) }
        chmod(dir, 0o777)
        let env = ["XDG_STATE_HOME=" + dir, "HOME=" + dir, "PATH=/usr/bin:/bin"]
        // timeout: a daemon that wrongly serves there would otherwise run on.
        let r = runProgram("/usr/bin/timeout", ["5", "/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                "env", "-i"] + env + [OtherUserBinaries.isletd, "--bus", "mock"])
        #expect(r.status == 69, "\(r.err)")
        #expect(r.err.contains("not a private directory"), "\(r.err)")
    }
}
