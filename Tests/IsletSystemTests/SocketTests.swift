import Glibc
import IsletErrno
import IsletSystem
import Synchronization
import Testing

@Suite("IsletSystem: sockets and threads")
struct SocketTests {
    @Test func aStreamSocketListensAcceptsAndCarriesBytesBothWays() throws {
        let dir = makeScratch()
        defer { clean(dir) }
        let path = dir + "/s.sock"
        let server = try UnixSocket.stream(nonBlocking: true)
        try server.bind(unixPath: path)
        try server.listen()
        #expect(try FileSystem.status(path, followLinks: false).kind == .socket)
        #expect(try server.accept() == nil, "nothing pending: nil, not an error")
        #expect(UnixSocket.answers(path))
        #expect(try server.accept() != nil, "the probe's connection")

        let client = try UnixSocket.stream()
        try client.connect(unixPath: path)
        guard let peer = try server.accept() else { Issue.record("no connection"); return }
        #expect(try peer.receive(capacity: 16) == nil, "non-blocking and empty: nil")
        try client.sendAll(Array("ping\n".utf8))
        #expect(try peer.waitReadable(timeoutMs: 1000))
        #expect(try peer.receive(capacity: 16) == Array("ping\n".utf8))
        #expect(try peer.sendSome(Array("pong".utf8)[...]) == 4)
        #expect(try client.waitReadable(timeoutMs: 1000))
        #expect(try client.receive(capacity: 16) == Array("pong".utf8))
        #expect(try client.waitReadable(timeoutMs: 0) == false)
        #expect(peer.unreadOutput() == 0)

        // The peer gone: end of file for the reader, EPIPE (not SIGPIPE) for the writer.
        client.close()
        #expect(try peer.receive(capacity: 16) == [])
        do { _ = try peer.sendSome(Array("late".utf8)[...]); _ = try peer.sendSome(Array("late".utf8)[...]) }
        catch { #expect(error.errno == .brokenPipe || error.errno.code == ECONNRESET) }
    }

    @Test func pathsThatDoNotFitOrDoNotAnswerAreErrors() throws {
        let long = "/tmp/" + String(repeating: "x", count: 200)
        #expect(!UnixSocket.fits(long))
        #expect(UnixSocket.fits("@abstract"))
        let s = try UnixSocket.stream()
        do { try s.connect(unixPath: long) } catch { #expect(error.errno == .fileNameTooLong) }
        do { try s.connect(unixPath: "/tmp/islet-no-such.sock") } catch {
            #expect(error.operation == "connect /tmp/islet-no-such.sock" && error.errno == .noSuchFileOrDirectory)
        }
        #expect(!UnixSocket.answers("/tmp/islet-no-such.sock"))
    }

    /// sd_notify's datagram, to a socket in the abstract namespace as systemd may name it.
    @Test func aDatagramReachesItsSocket() throws {
        let name = "@islet-system-test-\(getpid())"
        let receiver = try UnixSocket.datagram()
        try receiver.bind(unixPath: name)
        #expect(UnixSocket.sendDatagram(Array("READY=1".utf8), to: name))
        #expect(try receiver.waitReadable(timeoutMs: 1000))
        #expect(try receiver.receive(capacity: 64) == Array("READY=1".utf8))
        #expect(!UnixSocket.sendDatagram([1], to: "@islet-system-test-nobody-\(getpid())"))
    }

    @Test func aDetachedThreadRunsItsBody() throws {
        let done = Mutex(false)
        let counter = try EventCounter()
        try DetachedThread.start {
            done.withLock { $0 = true }
            counter.signal()
        }
        let fd = counter.fd
        var p = pollfd(fd: fd.raw, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 5000) == 1)
        #expect(done.withLock { $0 })
    }

    @Test func aNonTerminalHasNoSizeAndNoRawMode() throws {
        let dir = makeScratch()
        defer { clean(dir) }
        try FileSystem.writeFile(dir + "/f", [])
        let f = try FileDescriptor.open(dir + "/f")
        #expect(Terminal.size(of: f.raw) == nil)
        #expect(TerminalRawMode(f.raw) == nil)
    }
}
