#if canImport(Glibc)
import Glibc
#endif
import IsletErrno

/// A program started with posix_spawn(3): its standard output and error appended to a log
/// file, its standard input /dev/null or a pipe this process writes.
public struct ChildProcess: Sendable {
    public let pid: Int32
    /// The write end of the child's standard input, when it was asked for.
    public let input: FileDescriptor?

    /// The signals a parent sends its children.
    public enum Signal: Sendable {
        case terminate, kill
        var number: Int32 { self == .terminate ? SIGTERM : SIGKILL }
    }

    /// Starts `path` with `arguments`; `pipeInput` gives the child a pipe as standard input.
    public static func spawn(_ path: String, _ arguments: [String], logAppendedTo log: String,
                             pipeInput: Bool = false) throws(SystemError) -> ChildProcess {
        var p: [Int32] = [-1, -1]
        if pipeInput { guard pipe(&p) == 0 else { throw SystemError("pipe") } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if pipeInput {
            posix_spawn_file_actions_adddup2(&actions, p[0], 0)
            posix_spawn_file_actions_addclose(&actions, p[1])
        }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        if !pipeInput { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        if pipeInput { _ = Glibc.close(p[0]) }
        guard rc == 0 else {
            if pipeInput { _ = Glibc.close(p[1]) }
            throw SystemError("cannot start \(path)", Errno(rc))
        }
        let input = pipeInput ? try FileDescriptor(taking: p[1], operation: "pipe") : nil
        return ChildProcess(pid: pid, input: input)
    }

    /// Waits for the child `pid` to end; its exit status, 128 + the signal that ended it, or -1.
    public static func wait(_ pid: Int32) -> Int32 {
        var st: Int32 = 0
        guard SystemCall.retryingInterrupts({ waitpid(pid, &st, 0) }) >= 0 else { return -1 }
        if st & 0x7f == 0 { return (st >> 8) & 0xff }
        return 128 + (st & 0x7f)
    }

    /// True while the child `pid` has not ended (reaps it if it has).
    public static func isRunning(_ pid: Int32) -> Bool {
        var st: Int32 = 0
        return waitpid(pid, &st, WNOHANG) == 0
    }

    /// kill(2); a child already gone is no error worth a caller's attention.
    public static func send(_ signal: Signal, to pid: Int32) { _ = kill(pid, signal.number) }
}
