import IsletProtocol
import IsletFrame
import Foundation
import IsletCore
import IsletDaemon
import IsletRender
import IsletTestSupport

/// The repository root, found from this file's path, and the built binaries in it.
enum Repo {
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)   // Tests/IsletDaemonTests/DaemonHarness.swift
        return parts.joined(separator: "/")
    }()
    /// The programs under test: this build's, or those in ISLET_TEST_BIN (the arm64 run points
    /// it at the stripped release binaries it packages, so the scenarios test what ships).
    static var binaries: String { ProcessInfo.processInfo.environment["ISLET_TEST_BIN"] ?? root + "/.build/debug" }
    static var isletd: String { binaries + "/isletd" }
    static var isletctl: String { binaries + "/isletctl" }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

struct RunResult {
    var status: Int32
    var out: String
    var err: String
}

func sleepSeconds(_ s: Double) { if s > 0 { usleep(useconds_t(s * 1_000_000)) } }

/// Waits until the daemon's log contains `text`, at most `seconds` (instead of a fixed sleep).
func waitForLog(_ d: DaemonUnderTest, _ text: String, seconds: Double = 5) {
    let end = Date().addingTimeInterval(seconds)
    while !d.log_().contains(text), Date() < end { sleepSeconds(0.02) }
}

/// Runs a program to completion and captures its output.
func runProgram(_ path: String, _ args: [String], env: [String: String] = [:]) -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    var e = ProcessInfo.processInfo.environment
    for (k, v) in env { e[k] = v }
    p.environment = e
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    do { try p.run() } catch { return RunResult(status: -1, out: "", err: "\(error)") }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let r = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return RunResult(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: r, as: UTF8.self))
}

/// A daemon a test talks to through the real isletctl: a process (DaemonUnderTest) or the
/// daemon on a thread of this one (InProcessDaemon, on an injected clock).
protocol ControlledDaemon {
    var socket: String { get }
}

extension ControlledDaemon {
    func ctl(_ args: String...) -> RunResult { ctl(args) }
    func ctl(_ args: [String]) -> RunResult { runProgram(Repo.isletctl, ["--socket", socket] + args) }

    /// `status --json`, decoded.
    func status() throws -> ControlResponse {
        let r = ctl("status", "--json")
        guard r.status == 0 else { throw HarnessError("status failed (\(r.status)): \(r.err)") }
        return try JSONDecoder().decode(ControlResponse.self, from: Data(r.out.utf8))
    }

    /// What the emulated panel shows: nil when the display is off (dark).
    func panel() throws -> Bitmap? {
        guard let p = try status().status?.panel else { throw HarnessError("status carries no panel image") }
        guard let bytes = p.bytes, let b = Bitmap(width: p.width, height: p.height, bytes: bytes) else {
            throw HarnessError("panel image does not decode")
        }
        return p.on ? b : nil
    }

    /// The daemon's own `remaining_seconds` / `elapsed_seconds` for a timer, from `status --json`.
    func seconds(_ id: String) throws -> Double? {
        let r = ctl("status", "--json")
        guard r.status == 0, let o = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any],
              let acts = o["activities"] as? [[String: Any]] else { throw HarnessError("status failed: \(r.err)") }
        guard let a = acts.first(where: { $0["timer"] as? String == id }) else { return nil }
        return (a["remaining_seconds"] ?? a["elapsed_seconds"]) as? Double
    }

    func phase(_ id: String) throws -> Phase? { try status().activity(id)?.phase }

    /// `seconds(id)` with the stretch of real time in which the daemon read it.
    func reading(_ id: String) throws -> TimedReading? {
        let from = Date()
        guard let v = try seconds(id) else { return nil }
        return TimedReading(value: v, from: from, to: Date())
    }
}

/// A value the daemon computed at some moment between `from` and `to` (real time).
struct TimedReading: CustomStringConvertible {
    var value: Double
    var from: Date
    var to: Date
    var description: String { String(format: "%.3f (read within %.3f s)", value, to.timeIntervalSince(from)) }

    /// Whether a countdown lost, from `self` to `later`, the real time that passed between the
    /// two readings: no less than the least, no more than the most that can have passed (the
    /// daemon's instants are whole milliseconds; 50 ms covers the rounding). However slow the
    /// machine, a daemon that keeps time passes; one that drifts by a tenth of a second fails.
    func lost(toReach later: TimedReading) -> Bool {
        let lost = value - later.value
        return lost >= later.from.timeIntervalSince(to) - 0.05 && lost <= later.to.timeIntervalSince(from) + 0.05
    }
}

/// One isletd on the mock bus with its own socket and state directory.
final class DaemonUnderTest: ControlledDaemon {
    let dir: String
    /// Whether this harness made the directory (and so removes it).
    private let ownsDir: Bool
    let extraArgs: [String]
    let env: [String: String]
    private(set) var process: Process?
    var socket: String { dir + "/islet.sock" }
    var stateDir: String { dir + "/state" }
    var logPath: String { dir + "/isletd.log" }

    init(args: [String] = [], env: [String: String] = [:], dir: String? = nil) throws {
        self.dir = dir ?? makeTempDir()
        self.ownsDir = dir == nil
        self.extraArgs = args
        self.env = env
        try start()
    }

    deinit {
        if let p = process, p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        if ownsDir { try? FileManager.default.removeItem(atPath: dir) }
    }

    var pid: Int32 { process?.processIdentifier ?? -1 }

    func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Repo.isletd)
        p.arguments = ["--bus", "mock", "--socket", socket, "--state-dir", stateDir, "--log-level", "debug"] + extraArgs
        var e = ProcessInfo.processInfo.environment
        e["NOTIFY_SOCKET"] = nil
        e["WATCHDOG_USEC"] = nil
        for (k, v) in env { e[k] = v }
        p.environment = e
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        log?.seekToEndOfFile()
        p.standardError = log
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        process = p
        // Ready when the socket answers.
        for _ in 0..<200 {
            if ctl("status").status == 0 { return }
            if !p.isRunning { throw HarnessError("isletd exited with \(p.terminationStatus): \(log_())") }
            sleepSeconds(0.025)
        }
        throw HarnessError("isletd did not answer on \(socket) within 5 s: \(log_())")
    }

    func log_() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func kill9() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    func signal(_ s: Int32) { if let p = process { kill(p.processIdentifier, s) } }

    /// SIGTERM and wait; returns the exit status.
    func stop() -> Int32 {
        guard let p = process else { return -1 }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        return p.terminationStatus
    }
}

/// A raw connection for protocol abuse tests.
final class RawClient {
    let fd: Int32
    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard r == 0 else { throw HarnessError("connect \(path) failed") }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
    deinit { close(fd) }

    func send(_ s: String) { send(Array(s.utf8)) }
    func send(_ b: [UInt8]) { Self.send(b, on: fd) }

    /// Sends `b` from a thread of its own, started now: a flood the test must not block on while
    /// the daemon stops reading it.
    func sendInBackground(_ b: [UInt8]) {
        let fd = self.fd
        Thread { RawClient.send(b, on: fd) }.start()
    }

    private static func send(_ b: [UInt8], on fd: Int32) {
        var off = 0
        while off < b.count {
            let n = b[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    private var buffer: [UInt8] = []
    /// The next line, or nil at end of stream (or timeout).
    func readLine() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let l = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return l
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    func readJSON() -> [String: Any]? {
        guard let l = readLine(), let o = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any] else { return nil }
        return o
    }
}

extension ControlResponse {
    func activity(_ id: String) -> Activity? { activityList?.first { $0.timerID == id } }
}

func errorCode(_ o: [String: Any]?) -> String? { (o?["error"] as? [String: Any])?["code"] as? String }

/// Debian's libfaketime preload library for the architecture these tests were built for, if
/// installed. A multiarch root may hold another architecture's copy too (the arm64 test run's
/// root has both), which the loader would refuse to preload into our binaries.
func faketimeLibrary() -> String? {
    #if arch(arm64)
    let triple = "aarch64-linux-gnu"
    #elseif arch(x86_64)
    let triple = "x86_64-linux-gnu"
    #else
    let triple = ""
    #endif
    let own = "/usr/lib/\(triple)/faketime/libfaketime.so.1"
    if !triple.isEmpty { return FileManager.default.fileExists(atPath: own) ? own : nil }
    let dirs = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? []
    return dirs.map { "/usr/lib/\($0)/faketime/libfaketime.so.1" }.first { FileManager.default.fileExists(atPath: $0) }
}

/// Copies of the binaries that another user (nobody) can execute: the clone may live where only
/// its owner can enter (under /root, as CI's may). Made once per test process.
enum OtherUserBinaries {
    static let dir: String = {
        let d = makeTempDir()
        chmod(d, 0o755)
        // Made once per test process, so removed when the process exits.
        atexit { removeTree(OtherUserBinaries.dir) }
        for name in ["isletd", "isletctl"] {
            copyExecutable(name == "isletd" ? Repo.isletd : Repo.isletctl, to: d + "/" + name)
        }
        return d
    }()

    /// A hard link where it can (the same filesystem): nothing is ever open for writing, so no
    /// process another test starts meanwhile can make running it fail with "Text file busy"
    /// (a copy's descriptor, even close-on-exec, is held by a child between its fork and exec).
    /// Else a copy through a close-on-exec descriptor.
    private static func copyExecutable(_ source: String, to path: String) {
        if link(source, path) == 0 { return }
        guard let bytes = FileManager.default.contents(atPath: source) else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            off += n
        }
        fchmod(fd, 0o755)
    }
    static var isletd: String { dir + "/isletd" }
    static var isletctl: String { dir + "/isletctl" }
}
