import Dispatch
import IsletSystem
import Synchronization

/// Writes one small file of the state directory (the page's settings.json) off the event loop,
/// on a thread started at the first write (a desk whose settings are never edited pays
/// nothing): `AtomicFile`'s temp file, fsync, rename, fsync of the directory. Only the latest
/// bytes matter, so a flood of edits coalesces: bytes still waiting are replaced by newer ones,
/// and writes are at least `spacingMs` apart (an SD card is not rewritten hundreds of times a
/// second whatever a client sends). Each submit has a generation; a write says, through `done`
/// (an eventfd for the loop) and `takeCompletions`, up to which generation the disk holds the
/// bytes (or why not), so an edit is answered only once it is on disk.
public final class LatestFileWriter: Sendable {
    public struct Completion: Sendable, Equatable {
        /// Every submit up to this generation is on disk (or failed with `error`).
        public var generation: UInt64
        public var error: String?
    }
    public let path: String
    public let directory: String
    public let spacingMs: Int
    private struct State: Sendable {
        var waiting: [UInt8]?
        var submitted: UInt64 = 0
        var waitingGeneration: UInt64 = 0
        var completed: [Completion] = []
        var running = false
        var stopping = false
        var writes = 0
        var lastError: String?
    }
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let idle = DispatchSemaphore(value: 0)
    /// Cuts the spacing short at the stop.
    private let hurry = DispatchSemaphore(value: 0)
    private let system: any StoreSystem
    /// Readable when a write finished.
    public let done: EventCounter

    public init(path: String, directory: String, spacingMs: Int = 500, system: any StoreSystem = LiveStoreSystem()) throws(SystemError) {
        done = try EventCounter()
        self.path = path
        self.directory = directory
        self.spacingMs = spacingMs
        self.system = system
    }

    /// Queues these bytes (replacing any still waiting) and returns their generation, which a
    /// completion covers once they (or newer bytes) are written. Throws only when no thread
    /// could start.
    @discardableResult
    public func submit(_ bytes: [UInt8]) throws(SystemError) -> UInt64 {
        let (start, generation) = state.withLock { s -> (Bool, UInt64) in
            s.submitted += 1
            s.waiting = bytes
            s.waitingGeneration = s.submitted
            defer { s.running = true }
            return (!s.running, s.submitted)
        }
        if start {
            do { try DetachedThread.start { [self] in loop() } } catch {
                state.withLock { $0.running = false; $0.waiting = nil; $0.submitted -= 1 }
                throw SystemError("pthread_create (the settings writer)", error.errno)
            }
        }
        wake.signal()
        return generation
    }

    /// The writes finished since the last call, oldest first.
    public func takeCompletions() -> [Completion] {
        _ = done.drain()
        return state.withLock { s in defer { s.completed = [] }; return s.completed }
    }

    /// Writes done so far, and the last failure (nil once a write succeeds again).
    public var progress: (writes: Int, lastError: String?) { state.withLock { ($0.writes, $0.lastError) } }

    /// Writes what waits, then ends the thread (at the daemon's stop).
    public func finish() {
        let running = state.withLock { s -> Bool in s.stopping = true; return s.running }
        guard running else { return }
        wake.signal()
        hurry.signal()
        idle.wait()
    }

    private func loop() {
        while true {
            wake.wait()
            while let (bytes, generation) = state.withLock({ s -> ([UInt8], UInt64)? in
                defer { s.waiting = nil }
                return s.waiting.map { ($0, s.waitingGeneration) }
            }) {
                var error: String?
                do { try AtomicFile.write(bytes, to: path, directory: directory, mode: 0o640, system: system) }
                catch let e { error = "\(e)" }
                let stopping = state.withLock { s -> Bool in
                    s.writes += 1
                    s.lastError = error
                    // Unread completions stay few: one that says what the last said is merged.
                    if let last = s.completed.last, last.error == error { s.completed[s.completed.count - 1].generation = generation }
                    else { s.completed.append(Completion(generation: generation, error: error)) }
                    return s.stopping
                }
                done.signal()
                // The spacing: edits that arrive meanwhile wait, and only their latest is written.
                if !stopping { _ = hurry.wait(timeout: .now() + .milliseconds(spacingMs)) }
            }
            if state.withLock({ $0.stopping && $0.waiting == nil }) { break }
        }
        idle.signal()
    }
}
