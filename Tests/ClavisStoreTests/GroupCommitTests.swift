import ClavisCore
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import ClavisStore

/// Item writes that arrive while another is being committed share the next commit (one disk flush), and each keeps
/// its own outcome.
@Suite(.serialized) struct GroupCommitTests {
    /// Holds a first write inside its commit until `others` further writes are queued behind it, then lets it go and
    /// returns each further write's outcome, in the order of `others`.
    private func queueBehindAHeldWrite(
        _ keychain: Keychain, first: NewItem, others: [NewItem]
    ) throws -> [Result<ServiceAnswer<Item>, KeychainError>] {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let heldFinished = DispatchSemaphore(value: 0)
        // The threads hold the keychain unowned: one that outlived the test would keep its file open (a test's
        // small file system then cannot be unmounted), and each is waited for before this returns.
        let held = Thread { [unowned keychain] in
            _ = try? keychain.write { engine in
                entered.signal()
                gate.wait()
                return try engine.add([first])
            }
            heldFinished.signal()
        }
        held.start()
        entered.wait()
        let outcomes = Mutex([Int: Result<ServiceAnswer<Item>, KeychainError>]())
        let finished = DispatchSemaphore(value: 0)
        for (index, item) in others.enumerated() {
            Thread { [unowned keychain] in
                let outcome = Result { () throws(KeychainError) in try keychain.add(item) }
                outcomes.withLock { $0[index] = outcome }
                finished.signal()
            }.start()
        }
        // The first write's thread leads; the others wait for the next leader.
        while keychain.groupCommit.waitingCount < others.count { usleep(1000) }
        gate.signal()
        for _ in others { finished.wait() }
        heldFinished.wait()
        return outcomes.withLock { outcomes in others.indices.map { outcomes[$0]! } }
    }

    @Test func writesQueuedDuringACommitShareTheNextOneAndEachKeepsItsOutcome() throws {
        let temporary = TemporaryHome()
        let keychain = try temporary.open()
        _ = try keychain.add(password(account: "taken")).resultOrThrow()
        let before = keychain.writeStatistics
        let others = (0..<6).map { password(account: "queued-\($0)") } + [password(account: "taken")]
        let outcomes = try queueBehindAHeldWrite(keychain, first: password(account: "first"), others: others)
        for outcome in outcomes.prefix(6) {
            guard case .success(.done) = outcome else {
                Issue.record("a queued write failed: \(outcome)")
                continue
            }
        }
        // The duplicate fails alone, with its own error.
        guard case .failure(let error) = outcomes[6] else {
            Issue.record("the duplicate was stored")
            return
        }
        #expect(error.code == .duplicateItem)
        let after = keychain.writeStatistics
        #expect(after.writes - before.writes == 7)
        #expect(after.flushes - before.flushes == 2, "the first write's commit, then one for the six queued behind it")
        // What was acknowledged is on disk: a keychain opened afresh (another process's view) finds each item.
        let reopened = try Keychain(home: temporary.home)
        for account in ["first", "taken"] + (0..<6).map({ "queued-\($0)" }) {
            let found = try reopened.find(query(account: account)).resultOrThrow()
            #expect(found.count == 1, "\(account)")
        }
    }

    @Test func aWriteThatFillsTheDiskInASharedCommitFailsAloneAndTheOthersCommit() throws {
        let fileSystem = try SmallFileSystem()
        let keychain = try Keychain(home: fileSystem.home)
        // Larger than the whole file system: it cannot be written, whatever else is.
        let tooLarge = password(account: "too-large", secret: String(repeating: "x", count: 3 << 20))
        let others =
            [password(account: "small-0"), tooLarge] + (1..<4).map { password(account: "small-\($0)") }
        let outcomes = try queueBehindAHeldWrite(keychain, first: password(account: "first"), others: others)
        guard case .failure(let error) = outcomes[1] else {
            Issue.record("a secret larger than the file system was stored")
            return
        }
        #expect(error.code == .diskFull || error.code == .io, "\(error)")
        for (index, outcome) in outcomes.enumerated() where index != 1 {
            guard case .success(.done) = outcome else {
                Issue.record("write \(index) failed beside the one that filled the disk: \(outcome)")
                continue
            }
        }
        let reopened = try Keychain(home: fileSystem.home)
        for account in ["first"] + (0..<4).map({ "small-\($0)" }) {
            #expect(try reopened.find(query(account: account)).resultOrThrow().count == 1, "\(account)")
        }
        #expect(try reopened.find(query(account: "too-large")).resultOrThrow().isEmpty)
    }

    @Test func aWriteThatDerivesAnApplicationPasswordKeyCommitsByItself() throws {
        let temporary = TemporaryHome()
        let keychain = try temporary.open()
        // Its key derivation (about 100 ms at the calibrated cost) would hold every write sharing its commit.
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .applicationPassword)
        var sealed = password(
            account: "sealed",
            [
                .accessible: .string(ProtectionClass.whenUnlockedThisDeviceOnly.rawValue),
                .accessControl: .data(policy.encoded),
            ])
        sealed.authentication = AuthenticationProof(applicationPassword: "open sesame".secret)
        let before = keychain.writeStatistics
        let outcomes = try queueBehindAHeldWrite(
            keychain, first: password(account: "first"),
            others: [password(account: "plain-0"), sealed, password(account: "plain-1")])
        for outcome in outcomes {
            guard case .success(.done) = outcome else {
                Issue.record("a queued write failed: \(outcome)")
                continue
            }
        }
        let after = keychain.writeStatistics
        #expect(after.writes - before.writes == 4)
        // The first; then the plain writes queued before the sealed one, or the sealed one alone, and the rest.
        #expect(after.flushes - before.flushes >= 3, "the sealed write shared a commit")
    }

    @Test func aLoneWriteCommitsAloneAtOnce() throws {
        let temporary = TemporaryHome()
        let keychain = try temporary.open()
        for index in 0..<3 {
            _ = try keychain.add(password(account: "alone-\(index)")).resultOrThrow()
        }
        #expect(keychain.writeStatistics == WriteStatistics(writes: 3, flushes: 3))
        #expect(keychain.groupCommit.waitingCount == 0)
    }
}
