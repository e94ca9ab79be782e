import Glibc
import IsletErrno
import IsletSystem
import Synchronization
import Testing

/// Signals the handler took: proof that the calls were really interrupted.
let interruptsTaken = Atomic<Int>(0)

/// A signal whose handler does not ask for restarting (no SA_RESTART) makes a blocking call
/// return EINTR: the boundary retries, so the caller sees only the data.
@Suite("IsletSystem: EINTR")
struct InterruptTests {
    init() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptsTaken.add(1, ordering: .relaxed) }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        sigaction(SIGUSR1, &action, nil)
    }

    /// Interrupts the calling thread after 50 ms, then writes a byte to `fd` after 150 ms. The
    /// test's thread (a pool thread) blocks most signals: SIGUSR1 is let through until `restore`.
    private func interruptThenWrite(_ fd: Int32) throws -> sigset_t {
        var only = sigset_t(), old = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &only, &old)
        let target = pthread_self()
        try DetachedThread.start {
            usleep(50_000)
            pthread_kill(target, SIGUSR1)
            usleep(100_000)
            var b: UInt8 = 7
            _ = write(fd, &b, 1)
        }
        return old
    }

    private func restore(_ mask: sigset_t) {
        var m = mask
        pthread_sigmask(SIG_SETMASK, &m, nil)
    }

    /// A pipe whose write end is written only after this thread took a signal; `wait` blocks
    /// on the read end meanwhile, and must come back with the byte, not EINTR.
    private func afterAnInterrupt<T>(_ wait: (FileDescriptor) throws -> T) throws -> T {
        var p: [Int32] = [0, 0]
        #expect(pipe(&p) == 0)
        let reader = try FileDescriptor(taking: p[0], operation: "pipe")
        let writer = try FileDescriptor(taking: p[1], operation: "pipe")
        let before = interruptsTaken.load(ordering: .relaxed)
        let mask = try interruptThenWrite(writer.raw)
        defer { restore(mask) }
        // The write end stays open until the call returned (closing it would end the read early).
        let result = try withExtendedLifetime(writer) { try wait(reader) }
        #expect(interruptsTaken.load(ordering: .relaxed) > before, "the signal was taken during the call")
        return result
    }

    @Test func aBlockingReadIsRetried() throws {
        #expect(try afterAnInterrupt { try $0.readSome(capacity: 4) } == [7])
    }

    @Test func aWaitIsRetried() throws {
        #expect(try afterAnInterrupt { try $0.waitReadable(timeoutMs: 5000) })
    }
}

@Suite("IsletSystem: keys")
struct KeyReadTests {
    @Test func aKeyIsAByteNothingOrTheEnd() throws {
        var p: [Int32] = [0, 0]
        #expect(pipe(&p) == 0)
        let reader = try FileDescriptor(taking: p[0], operation: "pipe")
        let writer = try FileDescriptor(taking: p[1], operation: "pipe")
        _ = fcntl(reader.raw, F_SETFL, O_NONBLOCK)
        #expect(Terminal.readKey(from: reader.raw) == .nothing)
        try writer.writeAll([UInt8(ascii: "q")])
        #expect(Terminal.readKey(from: reader.raw) == .byte(UInt8(ascii: "q")))
        writer.close()
        #expect(Terminal.readKey(from: reader.raw) == .closed)
    }
}
