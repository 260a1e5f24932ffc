import Dispatch
internal import Synchronization

/// Item writes that arrive while another is being committed wait to share the next commit, and so its one disk flush
/// (group commit).
///
/// One thread at a time leads: it takes every write queued so far (at most `batchLimit`, and a write that must commit
/// alone by itself), has them committed together
/// (`Keychain.commitTogether`), wakes their threads, and hands the lead to the first write queued meanwhile. A write
/// that finds no leader leads at once, alone, and waits for nothing: a lone writer is served as before.
final class GroupCommit: Sendable {
    /// One write on its way to a commit. Its thread waits on it; the leader fills in the outcome before waking it.
    final class Write: @unchecked Sendable {
        /// Runs the write on the engine (inside the leader's transaction when it has company); true when it changed
        /// the keychain (its answer is `.done`), false when it answered a need and wrote nothing.
        let run: (KeychainEngine) throws -> Bool
        /// Whether the write commits alone, never in a shared transaction: one that derives a key from an application
        /// password (about 100 ms) would hold every other write's flush, and other processes' writes, that long.
        let isAlone: Bool
        /// Why the write failed, or `nil` once it is committed (or answered a need).
        var failure: (any Error)?
        /// Whether `run` changed the keychain in the transaction that committed.
        var wrote = false
        /// Set with the outcome: the write's thread returns, rather than leading.
        fileprivate(set) var isFinished = false
        fileprivate let woken = DispatchSemaphore(value: 0)

        init(alone: Bool = false, _ run: @escaping (KeychainEngine) throws -> Bool) {
            self.isAlone = alone
            self.run = run
        }
    }

    /// The most writes one commit takes.
    static let batchLimit = 64

    private struct Queue {
        var waiting: [Write] = []
        var isLed = false
    }

    private let queue = Mutex(Queue())

    /// How many writes wait for a leader to take them (tests wait on it).
    var waitingCount: Int { queue.withLock { $0.waiting.count } }

    /// Queues `write` and returns once its outcome is set: committed by this thread (`commitTogether` with the
    /// writes queued so far) when no other leads, else by a leader.
    func commit(_ write: Write, commitTogether: ([Write]) -> Void) {
        let leads = queue.withLock { queue in
            queue.waiting.append(write)
            guard !queue.isLed else { return false }
            queue.isLed = true
            return true
        }
        if !leads {
            write.woken.wait()
            if write.isFinished { return }
        }
        // This thread leads: its own write is the first queued.
        let batch = queue.withLock { queue in
            // The writes queued so far, up to the first that commits alone (which, first, commits by itself).
            let shared = queue.waiting.prefix(Self.batchLimit).prefix { !$0.isAlone }
            let batch = shared.isEmpty ? [queue.waiting[0]] : Array(shared)
            queue.waiting.removeFirst(batch.count)
            return Lent(batch)
        }.writes
        commitTogether(batch)
        for other in batch { other.isFinished = true }
        // The next leader first, so that the next commit starts while this one's writers are being woken.
        queue.withLock { queue in
            if let next = queue.waiting.first {
                next.woken.signal()
            } else {
                queue.isLed = false
            }
        }
        for other in batch where other !== write { other.woken.signal() }
    }

    /// Writes on their way from the queue to the leader.
    private struct Lent: @unchecked Sendable {
        let writes: [Write]
        init(_ writes: [Write]) { self.writes = writes }
    }
}
