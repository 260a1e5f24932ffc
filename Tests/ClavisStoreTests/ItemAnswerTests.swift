import ClavisCore
import ClavisCrypto
import ClavisStore
import FoundationEssentials
import Testing

/// The store answers what an item call needs first (`ServiceAnswer`) instead of throwing it: the policy of an
/// access-controlled item, an application password to seal with, or an unlock for a closed class. Nothing is written
/// by a call that answers a need, and a real failure still throws.
@Suite struct ItemAnswerTests {
    let temporary = TemporaryHome()

    private func keychainWithPasscode() throws -> Keychain {
        let keychain = try temporary.open()
        try keychain.setPasscode("1234".secret, current: nil, kdf: .cheapForTesting())
        return keychain
    }

    private func protected(_ account: String, _ policy: AccessControl, password applicationPassword: String? = nil)
        -> NewItem
    {
        var item = password(
            account: account, secret: "secret-\(account)",
            [.accessible: .string(policy.protection.rawValue), .accessControl: .data(policy.encoded)])
        item.authentication = applicationPassword.map { AuthenticationProof(applicationPassword: $0.secret) }
        return item
    }

    /// The policy and use an answer names, or `nil` when it names none.
    private func neededAuthentication<Result>(_ answer: ServiceAnswer<Result>)
        -> (AccessControl, KeychainError.ApplicationPasswordUse)?
    {
        guard case .needsAuthentication(let policy, let use) = answer else { return nil }
        return (policy, use)
    }

    private func needsUnlock<Result>(_ answer: ServiceAnswer<Result>) -> Bool {
        guard case .needsUnlock = answer else { return false }
        return true
    }

    @Test func findingAnAccessControlledSecretWithoutAProofAnswersTheItemsPolicy() throws {
        let keychain = try keychainWithPasscode()
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .userPresence)
        _ = try keychain.add(protected("a", policy)).resultOrThrow()

        let needed = try #require(neededAuthentication(try keychain.find(query(account: "a"))))
        #expect(needed.0 == policy)
        #expect(needed.1 == .open)
        #expect(
            neededAuthentication(try keychain.update(query(account: "a"), with: ItemChanges(secret: "x".secret)))?.0
                == policy)
        #expect(neededAuthentication(try keychain.delete(query(account: "a")))?.0 == policy)

        var proven = query(account: "a")
        proven.authentication = AuthenticationProof(passcode: true)
        guard case .done(let found) = try keychain.find(proven) else {
            Issue.record("a satisfied policy answered a need")
            return
        }
        #expect(found.first?.secret?.string == "secret-a")
        #expect(try keychain.find(query(account: "a", returnsSecret: false)).resultOrThrow().count == 1)
    }

    @Test func aClosedClassAnswersNeedsUnlockAndNothingIsWritten() throws {
        let keychain = try keychainWithPasscode()
        _ = try keychain.add(password(account: "ak", [.accessible: .string("ak")])).resultOrThrow()
        keychain.lock()

        #expect(needsUnlock(try keychain.find(query(account: "ak"))))
        #expect(needsUnlock(try keychain.add(password(account: "new", [.accessible: .string("ak")]))))
        #expect(needsUnlock(try keychain.update(query(account: "ak"), with: ItemChanges(secret: "x".secret))))
        #expect(needsUnlock(try keychain.delete(query(account: "ak"))))

        try keychain.unlock(passcode: "1234".secret)
        #expect(try keychain.find(query(account: "ak")).resultOrThrow().first?.secret?.string == "s3cret")
        #expect(try keychain.find(query(account: "new")).resultOrThrow().isEmpty)
    }

    @Test func anUpdateThatWouldSealAnItemIntoAClosedClassAnswersBeforeWritingAny() throws {
        let keychain = try keychainWithPasscode()
        for account in ["first", "second"] {
            _ = try keychain.add(password(account: account, secret: "old", [.accessible: .string("dk")]))
                .resultOrThrow()
        }
        keychain.lock()
        let everyItem = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("svc")], limit: .all)
        let moved = ItemChanges(attributes: [.accessible: .string("ak")], secret: "new".secret)
        #expect(needsUnlock(try keychain.update(everyItem, with: moved)))
        for account in ["first", "second"] {
            #expect(try keychain.find(query(account: account)).resultOrThrow().first?.secret?.string == "old")
        }
    }

    @Test func aBatchWhoseLaterItemIsInAClosedClassAnswersBeforeAddingAny() throws {
        let keychain = try keychainWithPasscode()
        keychain.lock()
        // `dk` stays open while locked and comes first; `ak` is closed: a loop that added as it checked would have
        // stored the first item before answering for the second.
        let batch = [
            password(account: "open", secret: "a", [.accessible: .string("dk")]),
            password(account: "closed", secret: "b", [.accessible: .string("ak")]),
        ]
        #expect(needsUnlock(try keychain.add(contentsOf: batch)))
        #expect(try keychain.find(query(account: "open")).resultOrThrow().isEmpty)
    }

    @Test func addingAnApplicationPasswordItemWithoutOneAnswersThePasswordToSealWith() throws {
        let keychain = try keychainWithPasscode()
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .applicationPassword)
        let needed = try #require(neededAuthentication(try keychain.add(protected("a", policy))))
        #expect(needed.0 == policy.applicationPasswordPart)
        #expect(needed.1 == .seal)
        #expect(try keychain.find(query(account: "a", returnsSecret: false)).resultOrThrow().isEmpty)

        _ = try keychain.add(protected("a", policy, password: "pw")).resultOrThrow()
        #expect(neededAuthentication(try keychain.find(query(account: "a")))?.1 == .open)
    }

    @Test func aWrongApplicationPasswordIsAFailureNotAnAnswer() throws {
        let keychain = try keychainWithPasscode()
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .applicationPassword)
        _ = try keychain.add(protected("a", policy, password: "pw")).resultOrThrow()
        var wrong = query(account: "a")
        wrong.authentication = AuthenticationProof(applicationPassword: "pW".secret)
        do {
            _ = try keychain.find(wrong)
            Issue.record("a wrong application password was answered, not thrown")
        } catch {
            #expect(error.code == .authFailed)
            #expect(error.pendingAccessControl == policy)
        }
    }

    @Test func theConvenienceForDirectCallersThrowsWhatTheStoreThrewBefore() throws {
        let keychain = try keychainWithPasscode()
        let policy = AccessControl(protection: .whenUnlockedThisDeviceOnly, flags: .userPresence)
        _ = try keychain.add(protected("a", policy)).resultOrThrow()
        do {
            _ = try keychain.find(query(account: "a")).resultOrThrow()
            Issue.record("a need was not thrown")
        } catch {
            #expect(error.code == .interactionNotAllowed)
            #expect(error.pendingAccessControl == policy)
            #expect(error.applicationPasswordUse == .open)
        }
        keychain.lock()
        #expect(status { try keychain.find(query(account: "a")).resultOrThrow() } == .interactionNotAllowed)
    }
}
