import IsletSystem
import Foundation
import IsletCore
import IsletDaemon
import Synchronization
import Testing
import IsletClock
import IsletStore
import IsletTestSupport

/// Issue 13 §2, §3 and §5: odd files in the daemon's paths, a refusing or silent daemon seen from
/// isletctl, the request-line limit at its boundary, and the order of the store's system calls.

/// Records each system call of a save, then makes it for real.
final class RecordingStoreSystem: StoreSystem {
    let calls = Mutex<[String]>([])
    let live = LiveStoreSystem()
    func note(_ s: String) { calls.withLock { $0.append(s) } }
    func name(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }
    func createExclusive(_ path: String, mode: UInt32) throws(SystemError) -> FileDescriptor { note("create \(name(path))"); return try live.createExclusive(path, mode: mode) }
    func write(_ fd: FileDescriptor, _ bytes: [UInt8]) throws(SystemError) { note("write"); try live.write(fd, bytes) }
    func fsync(_ fd: FileDescriptor) throws(SystemError) { note("fsync"); try live.fsync(fd) }
    func close(_ fd: FileDescriptor) { note("close"); live.close(fd) }
    func rename(_ from: String, _ to: String) throws(SystemError) { note("rename \(name(from)) \(name(to))"); try live.rename(from, to) }
    func unlink(_ path: String) { note("unlink \(name(path))"); live.unlink(path) }
    func openDirectory(_ path: String) throws(SystemError) -> FileDescriptor { note("open directory"); return try live.openDirectory(path) }
}

@Suite("state file and odd files", .offPool, .timeLimit(.minutes(2)))
struct StateFileSafetyTests {
    let now: @Sendable () -> Instant = { Instant(milliseconds: 1_800_000_000_000) }

    /// The durability of a save is its order: data, fsync of the file, rename, fsync of the
    /// directory (without the last, a power cut can forget the rename).
    @Test func aSaveWritesSyncsRenamesThenSyncsTheDirectory() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sys = RecordingStoreSystem()
        let store = FileStore(directory: dir, system: sys, now: now)
        try store.saveNow([])
        #expect(sys.calls.withLock { $0 } == ["create activities.json.tmp", "write", "fsync", "close",
                                               "rename activities.json.tmp activities.json", "open directory", "fsync", "close"])
    }

    /// A temp file planted as a symlink (another user, a world-writable directory) was followed:
    /// a root daemon overwrote the link's target. Now the link is removed, never written through.
    @Test func aPlantedTempSymlinkIsNotFollowed() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let victim = dir + "/victim"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, dir + "/activities.json.tmp") == 0)
        let store = FileStore(directory: dir, now: now)
        try store.saveNow([])
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        var st = stat()
        #expect(lstat(dir + "/activities.json", &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG)
        #expect(store.load().problem == nil)
    }

    /// A FIFO at the state path blocked the loop thread in open(2) forever (SIGTERM ignored).
    @Test func aFIFOAtTheStatePathIsMovedAsideNotWaitedOn() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/activities.json", 0o600) == 0)
        #expect(mkfifo(dir + "/activities.json.tmp", 0o600) == 0)
        let store = FileStore(directory: dir, now: now)
        let loaded = store.load()   // would hang before the fix
        #expect(loaded.activities.isEmpty)
        #expect(loaded.problem?.contains("not a regular file") == true, "\(String(describing: loaded.problem))")
        try store.saveNow([])       // and the FIFO at the temp path is replaced, not opened
        #expect(store.load().problem == nil)
    }

    @Test func aFIFOAtTheConfigPathIsAnErrorNotAHang() {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/isletd.conf", 0o600) == 0)
        let r = runProgram(Repo.isletd, ["--config", dir + "/isletd.conf", "--check-config"])
        #expect(r.status == 78)
        #expect(r.err.contains("not a regular file"), "\(r.err)")
    }

    @Test func aStateDirectoryOthersCanWriteIsRefusedWithTheFix() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let state = dir + "/state"
        #expect(mkdir(state, 0o755) == 0 && chmod(state, 0o777) == 0)
        let r = runProgram(Repo.isletd, ["--bus", "mock", "--socket", dir + "/s", "--state-dir", state])
        #expect(r.status == 73, "\(r.err)")
        #expect(r.err.contains("can be written by other users") && r.err.contains("chmod go-w"), "\(r.err)")
    }

    /// `--socket` at an existing regular file deleted that file.
    @Test func aSocketPathThatIsARegularFileIsLeftAlone() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/notes.txt"
        try "keep me\n".write(toFile: file, atomically: false, encoding: .utf8)
        let r = runProgram(Repo.isletd, ["--bus", "mock", "--socket", file, "--state-dir", dir + "/state"])
        #expect(r.status == 69, "\(r.err)")
        #expect(r.err.contains("is not a socket"), "\(r.err)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me\n")
    }
}

/// A socket that answers as a test wants: refuse and close, or accept and stay silent.
final class FakeDaemon: Sendable {
    let path: String
    let fd: Int32
    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0 && listen(fd, 8) == 0
        guard ok else { throw HarnessError("cannot listen on \(path)") }
    }
    deinit { close(fd) }
    /// Accepts one connection; sends `line` (if any) and closes at once without reading.
    func refuseNext(with line: String) {
        let c = accept(fd, nil, nil)
        guard c >= 0 else { return }
        _ = line.utf8CString.withUnsafeBufferPointer { Glibc.send(c, $0.baseAddress, line.utf8.count, Int32(MSG_NOSIGNAL)) }
        close(c)
    }
}

@Suite("isletctl against a refusing or silent daemon", .offPool, .timeLimit(.minutes(2)))
struct ClientRobustnessTests {
    /// isletctl was killed by SIGPIPE (141, nothing printed) when the daemon refused it.
    @Test func aRefusedConnectionPrintsTheDaemonsReason() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fake = try FakeDaemon(path: dir + "/s")
        let refusal = #"{"ok":false,"error":{"code":"too_many_clients","message":"the daemon serves at most 64 clients at once"}}"# + "\n"
        let t = Thread { fake.refuseNext(with: refusal) }
        t.start()
        // A long request makes the write meet the closed socket.
        let r = runProgram(Repo.isletctl, ["--socket", dir + "/s", "start", "--title", String(repeating: "x", count: 60)])
        #expect(r.status == 1, "status \(r.status): \(r.err)")
        #expect(r.err.contains("too_many_clients") && r.err.contains("at most 64 clients"), "\(r.err)")
    }

    @Test func aDaemonThatNeverAnswersTimesOutWithAMessage() throws {
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fake = try FakeDaemon(path: dir + "/s")   // listens (the kernel accepts) but never answers
        let started = Date()
        let r = runProgram(Repo.isletctl, ["--socket", dir + "/s", "--timeout", "0.5", "status"])
        #expect(r.status == 75, "status \(r.status): \(r.err)")
        #expect(r.err.contains("did not answer"), "\(r.err)")
        #expect(Date().timeIntervalSince(started) < 5)
        _ = fake
    }
}

@Suite("request line limit at its boundary", .offPool, .timeLimit(.minutes(2)))
struct LineLimitTests {
    /// `{"op":"status"}` padded with JSON whitespace to exactly `n` bytes.
    func request(_ n: Int) -> [UInt8] {
        let base = Array(#"{"op":"status"}"#.utf8)
        return base + [UInt8](repeating: 0x20, count: n - base.count)
    }

    @Test(arguments: [("\n", 16_384, true), ("\n", 16_385, false), ("\r\n", 16_384, true), ("\r\n", 16_385, false)])
    func aLineOfTheLimitIsAnsweredOneMoreIsRefused(_ c: (String, Int, Bool)) throws {
        let d = try DaemonUnderTest()
        let client = try RawClient(path: d.socket)
        client.send(request(c.1) + Array(c.0.utf8))
        let answer = client.readJSON()
        if c.2 {
            #expect(answer?["ok"] as? Bool == true, "\(c.1) bytes + \(c.0.debugDescription) should be answered")
        } else {
            #expect(errorCode(answer) == "line_too_long", "\(c.1) bytes + \(c.0.debugDescription): \(String(describing: answer))")
        }
    }

    @Test func anUnfinishedLinePastTheLimitIsRefusedAtOnce() throws {
        let d = try DaemonUnderTest()
        let client = try RawClient(path: d.socket)
        client.send(request(16_385))   // no newline: it can never become a valid request
        #expect(errorCode(client.readJSON()) == "line_too_long")
        // At the limit exactly, the daemon waits for the rest of the line.
        let other = try RawClient(path: d.socket)
        other.send(request(16_384) + [13])
        other.send("\n")
        #expect(other.readJSON()?["ok"] as? Bool == true)
    }
}

/// Issue 13 §2: clients that lock everyone else out. A person's `isletctl status` must get
/// through 64 stuck watchers or 64 tricklers; a pipelining client that reads is served in turns,
/// not dropped; an unfinished line times out.
@Suite("client fairness", .offPool, .timeLimit(.minutes(2)))
struct ClientFairnessTests {
    @Test func aPersonGetsThroughSixtyFourStuckWatchers() throws {
        let d = try DaemonUnderTest()
        var stuck: [RawClient] = []
        for _ in 0..<64 {
            let c = try RawClient(path: d.socket)
            c.send(#"{"op":"watch"}"# + "\n")   // and never read
            stuck.append(c)
        }
        sleepSeconds(0.3)
        let r = d.ctl("status")
        #expect(r.status == 0, "status \(r.status): \(r.err)")
        _ = stuck
    }

    // The tricklers and the line timeout are about time: the daemon runs in this process on an
    // injected clock (the control server's deadlines follow it), isletctl still asks over the socket.

    @Test func aPersonGetsThroughSixtyFourTricklers() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        var tricklers: [RawClient] = []
        for _ in 0..<64 { tricklers.append(try d.client()) }
        // Each sends a byte of a request now and then, never a whole line. The first asks once
        // before its byte: the answer shows the daemon has read that byte, so at least its line
        // is old enough to give way below, whenever the daemon read the others'.
        tricklers[0].send(#"{"op":"status"}"# + "\n{")
        #expect(tricklers[0].readJSON()?["ok"] as? Bool == true)
        for c in tricklers.dropFirst() { c.send("{") }
        d.pass(milliseconds: 600)
        for c in tricklers { c.send("\"") }
        d.pass(milliseconds: 600)
        let r = d.ctl("status")
        #expect(r.status == 0, "status \(r.status): \(r.err)")
        var told = 0
        for c in tricklers {
            var tv = timeval(tv_sec: 0, tv_usec: 1000)
            setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            if errorCode(c.readJSON()) == "too_many_clients" { told += 1 }
        }
        #expect(told == 1, "one place was needed, one trickler gave it: \(told)")
    }

    @Test func anUnfinishedLineTimesOut() throws {
        let d = try InProcessDaemon(clock: ManualLoopClock())
        defer { d.stop() }
        let c = try d.client()
        // A whole request first: its answer shows the daemon has read the unfinished line after it.
        c.send(#"{"op":"status"}"# + "\n" + #"{"op":"sta"#)
        #expect(c.readJSON()?["ok"] as? Bool == true)
        d.pass(milliseconds: 4_999)
        #expect(!answers(c, within: 0), "the line has 5 s to be finished")
        d.pass(milliseconds: 1)
        let late = c.readJSON()
        #expect(errorCode(late) == "request_timeout", "\(String(describing: late))")
    }

    @Test func aPipeliningClientThatReadsIsServedInTurnsNotDropped() throws {
        let d = try DaemonUnderTest()
        let flood = try RawClient(path: d.socket)
        let n = 3000
        flood.sendInBackground(Array(String(repeating: #"{"op":"status"}"# + "\n", count: n).utf8))
        // Meanwhile a person asks, and is answered.
        let person = d.ctl("status")
        #expect(person.status == 0, "\(person.err)")
        var answered = 0
        while answered < n, let o = flood.readJSON() {
            #expect(o["ok"] as? Bool == true)
            answered += 1
        }
        #expect(answered == n, "the flooding client got \(answered) of \(n) answers")
    }
}
