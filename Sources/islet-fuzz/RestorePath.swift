// The state and protocol targets' deeper paths: a state file through the whole restore (decode,
// the book's rules, the host clock, scheduling, the first frame), and a request through the book.
import IsletProtocol
import IsletCore
import IsletFrame
import IsletRender
import IsletSystem
import FoundationEssentials
import IsletClock
import IsletStore
import IsletDaemon

/// Fixed clocks (deterministic replay): 2026-12-03 on the wall, 11 days since boot.
final class FixedClock: LoopClock {
    static let boot: Int64 = 11 * 86_400 * 1_000_000_000
    static let wall: Int64 = 1_796_256_000_000 * 1_000_000
    func monotonic() -> MonotonicInstant { MonotonicInstant(nanoseconds: UInt64(Self.boot)) }
    func bootMilliseconds() -> Int64 { Self.boot / 1_000_000 }
    func wallMilliseconds() -> Int64 { Self.wall / 1_000_000 }
    func bootNanoseconds() -> Int64 { Self.boot }
    func wallNanoseconds() -> Int64 { Self.wall }
    func monotonic(atBootNanoseconds ns: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: 0).adding(nanoseconds: ns) }
    func makeDeadlineTimer() throws(SystemError) -> any DeadlineTimer { throw SystemError("fuzz", .invalidArgument) }
}

enum RestorePath {
    static let clock = FixedClock()
    /// Loaded once; nil (no fonts here) skips the frame, never the rest.
    static let renderer: Renderer? = try? Renderer()
    nonisolated(unsafe) static var frame = Bitmap(width: 128, height: 64)

    /// What `Daemon.init` and the first turn of `run()` do with a state file, minus the I/O.
    static func run(_ bytes: [UInt8]) {
        // With every part's slice, as the daemon loads it (the sync ledger under `sync`).
        guard case .success(let s) = FileStore.decode(bytes, slices: PartRegistry.slices) else { return }
        // What decodes meets the book's rules: the loader and the core agree.
        guard let book0 = try? ActivityBook(validating: s.activities) else { fail("state: decoded but the book refuses it") }
        var book = book0
        let host = HostClock(clock)
        if let t = s.timeline { _ = host.refusal(toContinue: t) }   // as in the same boot
        var now = host.now()
        if let saved = s.savedAt, now < saved { host.setFloor(saved); now = host.now() }
        for a in book.activities where !Instant.validRange.contains(a.startedAt) { fail("state: \(a.startedAt) restored") }
        _ = book.advance(to: now)
        schedule(book.activities, now: now, host: host)
        // The first frame, as `run()` draws it.
        if let scene = PresentationPolicy().scene(of: book.activities, now: now), let r = renderer {
            r.render(scene, options: RenderOptions(), into: &frame)
        }
        // A minute on (an hour of one-second cycles made each input cost milliseconds).
        let later = now + .seconds(60)
        _ = book.advance(to: later)
        schedule(book.activities, now: later, host: host)
    }

    static func schedule(_ activities: [Activity], now: Instant, host: HostClock) {
        for a in activities {
            _ = ShownTime.seconds(of: a, at: now)
            if let d = ShownTime.nextDeadline(of: a, after: now) { _ = host.monotonicInstant(of: d.at) }
        }
    }

    /// A request that parses goes through the book as the daemon routes it; whatever the book
    /// then holds must be a state the loader takes back (saved and decoded, the same activities).
    static func request(_ r: ControlRequest) {
        let now = Instant(milliseconds: FixedClock.wall / 1_000_000)
        var book = ActivityBook()
        // One activity of each kind beside the request's timer, so most ops have something to act on.
        _ = try? book.apply(.start(.countdown(minutes: 5, cycles: 3)), timer: "meditation", now: now - .seconds(100))
        _ = try? book.apply(.start(ActivityAttributes(kind: .stopwatch)), timer: "stopwatch", now: now - .seconds(50))
        guard case .verb(let verb) = r.op else { return }
        let intent = r.intent(of: verb, session: SessionDefaults(), now: now)
        guard let outcome = try? book.apply(intent, timer: r.timer, now: now) else { return }
        if case .starting(_, let ticket) = outcome { _ = book.finishStart(ticket, saved: true) }
        do throws(InvariantViolation) { try ActivityBook.check(book.activities) }
        catch { fail("protocol: \(r) left a book the loader refuses: \(error)") }
        // The state file a save of this book writes, read back by the loader.
        guard let list = try? JSONEncoder().encode(book.activities) else { fail("protocol: the book does not encode") }
        let file = Array(#"{"schema":1,"saved_at":"\#(ISO8601.format(now))","activities":"#.utf8) + Array(list) + Array("}".utf8)
        switch FileStore.decode(file) {
        case .success(let back): if back.activities != book.activities { fail("protocol: \(r): the state file reads back otherwise") }
        case .failure(let why): fail("protocol: \(r): the loader refuses the state it leaves: \(why.reason)")
        }
    }
}
