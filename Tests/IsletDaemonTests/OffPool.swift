import Foundation
import Testing

/// Swift Testing runs tests on the concurrency pool: one thread per core, two here. A test that
/// waits (for a daemon process to start, for isletctl, for real seconds to pass) holds one of
/// those threads while it waits, and the machine idles. Tests with this trait run on a thread of
/// their own instead: the same task (so #expect still reports to its test), another executor.
/// At most `OffPool.width` of them run at once, so the daemons they start do not crowd the two
/// cores and the timing they check stays what it means.
#if compiler(>=6.1)
struct OffPool: TestTrait, SuiteTrait, TestScoping {
    static let width = 4
    static let gate = Gate(OffPool.width)
    static let executor = OwnThreadExecutor()

    var isRecursive: Bool { true }

    /// Each test case runs in the scope; a suite as a whole does not need one.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? nil : self }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        await Self.gate.enter()
        do {
            try await withTaskExecutorPreference(Self.executor) { try await function() }
        } catch {
            await Self.gate.leave()
            throw error
        }
        await Self.gate.leave()
    }
}
#else
/// Swift 6.0's Testing (Debian trixie's swiftlang) has no TestScoping: there the trait only
/// marks the tests, which run on the pool (slower on two cores, the same checks).
struct OffPool: TestTrait, SuiteTrait {
    var isRecursive: Bool { true }
}
#endif

extension Trait where Self == OffPool {
    /// Runs on a thread of its own, not on the pool's few threads (see OffPool).
    static var offPool: Self { OffPool() }
}

/// A task executor that gives each job a new thread: what runs on it may block.
final class OwnThreadExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread { job.runSynchronously(on: executor) }
    }
}

/// A counting semaphore for tasks: waiting suspends the task, it never blocks a thread.
actor Gate {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    init(_ width: Int) { free = width }
    func enter() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }
    func leave() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
