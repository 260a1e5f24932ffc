import ClavisSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// How many times the test's signal handler ran.
private let signalsHandled = Atomic<Int>(0)

@Suite(.serialized) struct SystemCallTests {
    /// A read that a signal interrupts (`SIGUSR1`, handled without `SA_RESTART`, so the kernel answers `EINTR`) is
    /// made again and gets the byte written after it. The writer keeps interrupting until the reader has made its
    /// call twice, which it does only after an `EINTR`, then writes.
    @Test func anInterruptedReadIsMadeAgain() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in signalsHandled.add(1, ordering: .relaxed) }
        action.sa_flags = 0
        var previous = sigaction()
        #expect(sigaction(SIGUSR1, &action, &previous) == 0)
        defer { sigaction(SIGUSR1, &previous, nil) }
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { for end in [readEnd, writeEnd] { close(end) } }

        // The signal must reach this thread: a test runner's threads may start with it blocked.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGUSR1)
        var mask = sigset_t()
        #expect(pthread_sigmask(SIG_UNBLOCK, &unblocked, &mask) == 0)
        defer { pthread_sigmask(SIG_SETMASK, &mask, nil) }

        let calls = Atomic<Int>(0)
        let reader = pthread_self()
        let writer = Thread {
            // Bounded, so that a reader the signal never reaches fails the test rather than hang it.
            for _ in 0..<Self.mostSignals where calls.load(ordering: .acquiring) < 2 { pthread_kill(reader, SIGUSR1) }
            var byte: UInt8 = 42
            _ = write(writeEnd, &byte, 1)
        }
        writer.start()
        var byte: UInt8 = 0
        let count = SystemCall.retrying { () -> Int in
            calls.add(1, ordering: .releasing)
            return read(readEnd, &byte, 1)
        }
        writer.join()
        #expect(count == 1 && byte == 42)
        #expect(calls.load(ordering: .relaxed) >= 2)
        #expect(signalsHandled.load(ordering: .relaxed) >= 1)
    }

    /// How many signals the writer sends at most before it writes anyway.
    private static let mostSignals = 1_000_000

    @Test func aFailureOtherThanAnInterruptionIsThrownWithItsErrno() {
        #expect(throws: SystemError(EBADF)) { try SystemCall.checked { read(-1, nil, 0) } }
        #expect(SystemError(ENOENT).description == "No such file or directory")
    }
}

/// A system thread the test joins.
private final class Thread: @unchecked Sendable {
    private let body: @Sendable () -> Void
    private var thread = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
    }

    func join() { pthread_join(thread, nil) }
}
