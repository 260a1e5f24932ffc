import ClavisCore
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ClavisStore

/// A keychain opened with readers (as clavisd opens each): item reads run on connections of their own, beside
/// writes and each other, and follow the lock state as reads on the one connection do.
@Suite(.serialized) struct ReaderPoolTests {
    private let passcode = "1234".secret

    @Test func aReadDoesNotWaitForAWriteHeldInItsCommit() throws {
        let temporary = TemporaryHome()
        let keychain = try Keychain(home: temporary.home, readers: 2)
        _ = try keychain.add(password(account: "existing", secret: "before")).resultOrThrow()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let writer = DispatchSemaphore(value: 0)
        Thread {
            _ = try? keychain.write { engine in
                entered.signal()
                gate.wait()
                return try engine.add([password(account: "held")])
            }
            writer.signal()
        }.start()
        entered.wait()
        // The write holds the engine's lock (and would hold its flush): the reads go on beside it. (Waited for with
        // a bound only so that a read queued behind the write fails the test rather than hanging it.)
        let read = DispatchSemaphore(value: 0)
        let seen = Mutex<[String]>([])
        Thread {
            for account in ["existing", "held"] {
                let found = (try? keychain.find(query(account: account)).resultOrThrow()) ?? []
                seen.withLock { $0.append(found.first?.secret?.string ?? "none") }
            }
            read.signal()
        }.start()
        let answered = read.wait(timeout: .now() + 30) == .success
        gate.signal()
        #expect(answered, "a read waited for the write's commit")
        if !answered { read.wait() }
        #expect(seen.withLock { $0 } == ["before", "none"], "the committed item, and not the uncommitted one")
        writer.wait()
        #expect(try keychain.find(query(account: "held")).resultOrThrow().count == 1, "a committed write is seen")
    }

    @Test func readersFollowEveryLockAndUnlock() throws {
        let temporary = TemporaryHome()
        do {
            let keychain = try Keychain(home: temporary.home)
            try keychain.setPasscode(passcode, current: nil, kdf: .cheapForTesting())
            _ = try keychain.add(
                password(account: "unlocked-only", [.accessible: .string(ProtectionClass.whenUnlocked.rawValue)])
            ).resultOrThrow()
        }
        let keychain = try Keychain(home: temporary.home, readers: 3)
        guard case .needsUnlock = try keychain.find(query(account: "unlocked-only")) else {
            Issue.record("read before the first unlock")
            return
        }
        try keychain.unlock(passcode: passcode)
        // More reads at once than there are readers: every reader has the opened keys.
        let opened = readConcurrently(keychain, count: 12)
        #expect(opened.allSatisfy { $0 == "s3cret" }, "\(opened)")
        keychain.lock()
        let locked = readConcurrently(keychain, count: 12)
        #expect(locked.allSatisfy { $0 == "needs unlock" }, "\(locked)")
        try keychain.unlock(passcode: passcode)
        #expect(readConcurrently(keychain, count: 6).allSatisfy { $0 == "s3cret" })
    }

    @Test func aLockReturnsOnlyOnceTheReadsInProgressHaveEnded() throws {
        let temporary = TemporaryHome()
        let keychain = try Keychain(home: temporary.home, readers: 2)
        _ = try keychain.add(password(account: "existing")).resultOrThrow()
        let readers = try #require(keychain.readers)
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let readEnded = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            _ = try? readers.read { engine in
                entered.signal()
                gate.wait()
                defer { readEnded.store(true, ordering: .sequentiallyConsistent) }
                return try engine.find(query(account: "existing"))
            }
            finished.signal()
        }.start()
        entered.wait()
        let endedWhenLockReturned = Atomic<Bool>(false)
        let lockReturned = Atomic<Bool>(false)
        Thread {
            keychain.lock()
            endedWhenLockReturned.store(
                readEnded.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            lockReturned.store(true, ordering: .sequentiallyConsistent)
            finished.signal()
        }.start()
        // The lock holds the engine's lock while it waits for the read: once that is taken (or the lock returned
        // without waiting), let the read end.
        while keychain.engine.withLockIfAvailable({ _ in true }) != nil,
            !lockReturned.load(ordering: .sequentiallyConsistent)
        {
            usleep(100)
        }
        gate.signal()
        finished.wait()
        finished.wait()
        let ended = endedWhenLockReturned.load(ordering: .sequentiallyConsistent)
        #expect(ended, "the lock returned while a read that had the open keys went on")
    }

    @Test func aServingKeychainCheckpointsItsLogLessOften() throws {
        let temporary = TemporaryHome()
        func checkpointPages(_ keychain: Keychain) throws -> Int64? {
            try keychain.engine.withLock { try $0.connection.scalar("PRAGMA wal_autocheckpoint")?.integer }
        }
        #expect(try checkpointPages(try Keychain(home: temporary.home)) == 100)
        #expect(try checkpointPages(try Keychain(home: temporary.home, readers: 2)) == 1000)
    }

    /// `count` reads of the `unlocked-only` item on as many threads at once: each its secret, or why not.
    private func readConcurrently(_ keychain: Keychain, count: Int) -> [String] {
        let results = Mutex([String]())
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let outcome: String
            switch Result(catching: { try keychain.find(query(account: "unlocked-only")) }) {
            case .success(.done(let items)): outcome = items.first?.secret?.string ?? "nothing"
            case .success(.needsUnlock): outcome = "needs unlock"
            case .success(let other): outcome = "\(other)"
            case .failure(let error): outcome = "\(error)"
            }
            results.withLock { $0.append(outcome) }
        }
        return results.withLock { $0 }
    }
}
