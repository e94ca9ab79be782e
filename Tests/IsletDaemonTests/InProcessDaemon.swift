import IsletSettings
import IsletParts
import IsletTestSupport
import IsletSystem
import Foundation
import IsletDaemon
import Synchronization
import Testing
import IsletClock
import IsletStore
import IsletConfig

/// The real system calls of a save, except that fsync can be held (a slow SD card) or fail.
final class SlowStoreSystem: StoreSystem {
    let live = LiveStoreSystem()
    let holding = Mutex(false)
    let failing = Mutex(false)
    let fsyncs = Mutex(0)
    /// Renames by their destination's file name (how often each file was replaced).
    let renamed = Mutex<[String: Int]>([:])
    func createExclusive(_ path: String, mode: UInt32) throws(SystemError) -> FileDescriptor { try live.createExclusive(path, mode: mode) }
    func write(_ fd: FileDescriptor, _ bytes: [UInt8]) throws(SystemError) { try live.write(fd, bytes) }
    func fsync(_ fd: FileDescriptor) throws(SystemError) {
        while holding.withLock({ $0 }) { usleep(2000) }
        fsyncs.withLock { $0 += 1 }
        if failing.withLock({ $0 }) { throw SystemError("fsync", .ioError) }
        try live.fsync(fd)
    }
    func close(_ fd: FileDescriptor) { live.close(fd) }
    func rename(_ from: String, _ to: String) throws(SystemError) {
        try live.rename(from, to)
        renamed.withLock { $0[String(to.split(separator: "/").last ?? ""), default: 0] += 1 }
    }
    func unlink(_ path: String) { live.unlink(path) }
    func openDirectory(_ path: String) throws(SystemError) -> FileDescriptor { try live.openDirectory(path) }
}

/// isletd's Daemon running on a thread of this process, on the mock bus. With a ManualLoopClock
/// everything the daemon times (its frames, dismissals, expands, gestures, chime, client
/// deadlines) waits for the test to move the clock; isletctl still talks to it over the socket.
final class InProcessDaemon: ControlledDaemon, @unchecked Sendable {
    // @unchecked: the daemon is touched only by its own thread after start; the test thread
    // uses the socket, the stopper (thread-safe) and the files.
    let dir = makeTempDir()
    let disk = SlowStoreSystem()
    let clock: any LoopClock
    private let daemon: Daemon
    private let finished = DispatchSemaphore(value: 0)
    /// The loop thread's /proc entry (/proc/self/task/TID), recorded by the thread itself.
    private let loopTask = Mutex<String?>(nil)
    /// The state writer's thread(s), which Daemon.init starts: found by name, since a thread
    /// inherits the name of the thread that makes it and init gives its own a unique one.
    private let writerTasks: [String]
    var socket: String { dir + "/islet.sock" }
    var stateFile: String { dir + "/state/activities.json" }

    /// `state`: a state file's text, in place before the daemon starts; `settings`, the page's
    /// settings.json.
    init(clock: any LoopClock = SystemLoopClock(), args: [String] = [], config configText: String? = nil, state: String? = nil,
         settings: String? = nil) throws {
        self.clock = clock
        if state != nil || settings != nil {
            try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        if let state { try state.write(toFile: dir + "/state/activities.json", atomically: true, encoding: .utf8) }
        if let settings { try settings.write(toFile: dir + "/state/settings.json", atomically: true, encoding: .utf8) }
        var extra = args
        if let configText {
            try configText.write(toFile: dir + "/isletd.conf", atomically: true, encoding: .utf8)
            extra += ["--config", dir + "/isletd.conf"]
        }
        let cl = try DaemonCommandLine.parse(["--bus", "mock", "--socket", dir + "/islet.sock",
                                              "--state-dir", dir + "/state", "--log-level", "error"] + extra)
        let config = try cl.load(parts: PartRegistry.settings)
        let ownName = procFile("/proc/thread-self/comm") ?? ""
        let tag = String(format: "islet-%08x", UInt32.random(in: .min ... .max))
        nameThisThread(tag)
        defer { nameThisThread(ownName) }
        do {
            daemon = try Daemon(config: config, reload: { () throws(ConfigError) -> DaemonConfig in config },
                                log: Logger(threshold: .error), clock: clock, storeSystem: disk)
        } catch { throw HarnessError("the daemon did not start: \(error)") }
        let me = currentTask()
        writerTasks = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [])
            .map { "/proc/self/task/" + $0 }
            .filter { $0 != me && procFile($0 + "/comm") == tag }
        guard !writerTasks.isEmpty else { throw HarnessError("the daemon's state writer thread was not found") }
        Thread.detachNewThread { [self] in
            loopTask.withLock { $0 = currentTask() }
            _ = daemon.run()
            finished.signal()
        }
    }

    /// Every object of the daemon's module reachable from the daemon (its fields, the list of
    /// parts, and what they hold, through optionals, collections and values), once each, with
    /// its type's name and its own stored properties' count: a part hidden inside another is
    /// found too.
    func objects() -> [(type: String, fields: Int)] {
        var seen: Set<ObjectIdentifier> = []
        var found: [(type: String, fields: Int)] = []
        func visit(_ value: Any, depth: Int) {
            guard depth < 12 else { return }
            let mirror = Mirror(reflecting: value)
            if type(of: value) is AnyClass {
                let object = value as AnyObject
                guard seen.insert(ObjectIdentifier(object)).inserted else { return }
                let name = String(reflecting: type(of: value))
                // Only the daemon's own modules: the libraries below it have rules of their own.
                let modules = ["IsletDaemon.", "IsletParts.", "IsletNetwork.", "IsletWeb."]
                guard let module = modules.first(where: { name.hasPrefix($0) }) else { return }
                // A tuple is a struct in disguise: each of its elements counts as a field.
                found.append((String(name.dropFirst(module.count)), mirror.children.reduce(0) { $0 + Self.fieldCount($1.value) }))
            }
            for child in mirror.children { visit(child.value, depth: depth + 1) }
        }
        visit(daemon, depth: 0)
        return found
    }

    /// How many fields a stored value is: a tuple's elements (an optional tuple's, set or not),
    /// else one.
    static func fieldCount(_ value: Any) -> Int {
        let m = Mirror(reflecting: value)
        if m.displayStyle == .tuple { return max(1, m.children.count) }
        guard m.displayStyle == .optional else { return 1 }
        if let some = m.children.first { return fieldCount(some.value) }
        // nil: the elements are read from the type's name, "Optional<(a: A, b: (B, C))>".
        let name = String(describing: type(of: value))
        guard name.hasPrefix("Optional<("), name.hasSuffix(")>") else { return 1 }
        var depth = 0
        var elements = 1
        for c in name.dropFirst("Optional<(".count).dropLast(2) {
            switch c {
            case "(", "<", "[": depth += 1
            case ")", ">", "]": depth -= 1
            case "," where depth == 0: elements += 1
            default: break
            }
        }
        return elements
    }

    /// The panel's counters (scenes decided, frames rendered, frames sent), read by reflection
    /// while the loop is at rest (`settle` first).
    func panelCounters() -> [String: Int] {
        guard let panel = Mirror(reflecting: daemon).children.first(where: { $0.label == "panel" })?.value,
              let counters = Mirror(reflecting: panel).children.first(where: { $0.label == "counters" })?.value else { return [:] }
        var out: [String: Int] = [:]
        for c in Mirror(reflecting: counters).children { if let l = c.label, let v = c.value as? Int { out[l] = v } }
        return out
    }

    func stop() {
        daemon.stopper.stop()
        finished.wait()
        removeTree(dir)
    }

    func client() throws -> RawClient { try RawClient(path: socket) }

    // MARK: time on a ManualLoopClock

    /// Whether the loop thread sleeps in epoll_wait, as the kernel reports it (wchan names the
    /// function a blocked thread waits in, "0" while it runs): then nothing is ready for it and
    /// everything it was given (a fired timer, a request) is done, its afterwork included. A
    /// wake-up is synchronous with the write or signal that causes it, so a test that sees this
    /// after its own action knows the loop has dealt with it.
    private func loopIsAsleep() -> Bool {
        guard let task = loopTask.withLock({ $0 }), let wchan = procFile(task + "/wchan") else { return false }
        return wchan.contains("epoll") || wchan.contains("ep_poll")
    }

    /// Whether the state writer waits for work (blocked on its semaphore, a futex): no save is
    /// under way and the last one's completion has been signalled to the loop. With the real
    /// clock, the disk keeps up as time passes; on the manual one, passing time waits for it.
    private func writerIsIdle() -> Bool {
        writerTasks.allSatisfy { task in procFile(task + "/wchan").map { $0.contains("futex") } ?? true }
    }

    /// Both at rest, seen twice in a row: a writer blocked on the lock the loop held at the
    /// first look is running (or done, and the loop woken) at the second.
    private func atRest() -> Bool {
        writerIsIdle() && loopIsAsleep() && writerIsIdle() && loopIsAsleep()
    }

    /// Waits (at most 10 s) until the loop is asleep and the writer idle: the daemon has dealt
    /// with what the test did so far, the durable writes included.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) {
        let end = Date().addingTimeInterval(10)
        while !atRest() {
            if Date() > end {
                Issue.record("the daemon was not seen at rest (loop in epoll_wait, writer on a futex) within 10 s (does /proc/PID/task/TID/wchan name kernel functions here?)",
                             sourceLocation: sourceLocation)
                return
            }
            usleep(100)
        }
    }

    /// Lets `ms` of time pass as the real clock would: in steps of at most 50 ms, the loop at rest
    /// before each, so it sees each deadline on the way (a shown second, a chime's pulse, a
    /// button's release) when it falls due, and what the test asks next is answered from the
    /// state after it.
    func pass(milliseconds ms: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let manual = clock as? ManualLoopClock else {
            Issue.record("time passes by itself on this daemon's clock", sourceLocation: sourceLocation)
            return
        }
        var left = max(0, ms)
        settle(sourceLocation: sourceLocation)
        while left > 0 {
            let step = min(left, 50)
            manual.advance(milliseconds: step)
            left -= step
            settle(sourceLocation: sourceLocation)
        }
    }

    /// One request on a new connection, its answer.
    func request(_ json: String) throws -> [String: Any]? {
        let c = try client()
        c.send(json + "\n")
        return c.readJSON()
    }

    func activities(_ answer: [String: Any]?) -> [String] {
        ((answer?["activities"] as? [[String: Any]]) ?? []).compactMap { $0["timer"] as? String }
    }

    /// Polls `status` until `done` holds (the loop runs on its own thread), for at most 10 s
    /// (the bound only matters when the test fails; other tests share the 2 cores).
    func waitForStatus(_ done: ([String: Any]) -> Bool) throws -> [String: Any]? {
        for _ in 0..<500 {
            if let s = try request(#"{"op":"status"}"#), done(s) { return s }
            usleep(20_000)
        }
        return nil
    }

    func fileTimers() -> [String]? {
        guard let d = FileManager.default.contents(atPath: stateFile),
              let o = try? JSONSerialization.jsonObject(with: d) as? [String: Any],
              let list = o["activities"] as? [[String: Any]] else { return nil }
        return list.compactMap { ($0["attributes"] as? [String: Any])?["timer"] as? String }
    }
}

/// Whether a reply line arrives within `ms` (without consuming more than it).
func answers(_ c: RawClient, within ms: Int) -> Bool {
    var p = pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, Int32(ms)) == 1
}

/// The calling thread's /proc entry, /proc/self/task/TID.
private func currentTask() -> String? {
    var link = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &link, link.count - 1)   // "PID/task/TID"
    guard n > 0, let tid = String(decoding: link[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/").last else { return nil }
    return "/proc/self/task/" + tid
}

/// Sets the calling thread's name (its comm, at most 15 bytes), as pthread_setname_np does.
private func nameThisThread(_ name: String) {
    guard let f = fopen("/proc/thread-self/comm", "w") else { return }
    fputs(name, f)
    fclose(f)
}

/// A small /proc file's text, trimmed (their size reads as 0: readTextFile reads to the end).
private func procFile(_ path: String) -> String? {
    readTextFile(path)?.trimmingCharacters(in: .whitespacesAndNewlines)
}
