// Swift Testing is there only when tests are built (not in a release build of the package).
#if canImport(Testing)
    import Foundation
    import Testing

    /// An askpass program that holds every caller until `count` of them are waiting, then answers them all at once, so
    /// the unlocks behind them race for real. It waits on two named pipes, never on a timer; a run that ends before
    /// the gate opens (`noteExit`) fails the wait instead of leaving it blocked.
    public final class AskpassGate: Sendable {
        public let askpass: String
        private let arrivals: String
        private let gate: String
        /// The pipes, held open read-write for the gate's whole life, so no side ever sees an end of file, blocks on
        /// open, or is killed by SIGPIPE writing to a pipe nobody holds (a run's `noteExit` may come late).
        private let arrivalsDescriptor: Int32
        private let gateDescriptor: Int32
        /// What `noteExit` writes to the arrivals pipe (an arrival is a line).
        private static let exitMark = UInt8(ascii: "!")

        public init(folder: String, answer: String) throws {
            arrivals = folder + "/arrivals"
            gate = folder + "/gate"
            #expect(mkfifo(arrivals, 0o600) == 0 && mkfifo(gate, 0o600) == 0)
            askpass = try ClavisBinary.writeAskpass(
                in: folder, "#!/bin/sh\necho here > '\(arrivals)'\nread go < '\(gate)'\necho '\(answer)'\n")
            arrivalsDescriptor = open(arrivals, O_RDWR | O_CLOEXEC)
            gateDescriptor = open(gate, O_RDWR | O_CLOEXEC)
        }

        deinit {
            close(arrivalsDescriptor)
            close(gateDescriptor)
        }

        /// Lets another user's processes call the askpass program (its pipes become theirs).
        public func allow(uid: uid_t, gid: gid_t) {
            chown(arrivals, uid, gid)
            chown(gate, uid, gid)
        }

        /// Says that a run ended: before the gate opened, that run never asked (or died), and the wait fails.
        @Sendable public func noteExit() {
            var mark = Self.exitMark
            _ = write(arrivalsDescriptor, &mark, 1)
        }

        /// Runs `body`, which starts processes that call the askpass program `count` times in all, runs `whileWaiting`
        /// once all `count` calls are waiting, then opens the gate.
        ///
        /// A run that ends before then (`noteExit`, which `body`'s runs must call when they end) records an issue and
        /// opens the gate at once, so the others finish and the test fails rather than hangs.
        public func releasingTogether<Result: Sendable>(
            _ count: Int, whileWaiting: () throws -> Void = {}, _ body: @escaping @Sendable () throws -> Result
        ) throws -> Result {
            nonisolated(unsafe) var outcome: Swift.Result<Result, any Error>?
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                outcome = Swift.Result { try body() }
                finished.signal()
            }
            var lines = 0
            var endedEarly = false
            var byte: UInt8 = 0
            while lines < count, !endedEarly, read(arrivalsDescriptor, &byte, 1) == 1 {
                if byte == UInt8(ascii: "\n") { lines += 1 }
                if byte == Self.exitMark { endedEarly = true }
            }
            if endedEarly {
                Issue.record("a run ended before the gate opened; \(lines) of \(count) calls had arrived")
            } else {
                try whileWaiting()
            }
            // Enough lines for every waiting call and any later one.
            let release = [UInt8](repeating: UInt8(ascii: "\n"), count: count * 4)
            _ = release.withUnsafeBytes { write(gateDescriptor, $0.baseAddress, $0.count) }
            finished.wait()
            return try outcome!.get()
        }
    }
#endif
