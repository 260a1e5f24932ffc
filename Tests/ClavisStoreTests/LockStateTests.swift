import ClavisCore
import ClavisCrypto
import ClavisStore
import Testing

@Suite struct LockStateTests {
    let temporary = TemporaryHome()
    let passcode = "correct horse".secret

    /// One item per protection class, account named after the class code, in a keychain with a passcode.
    private func keychainWithEveryClass() throws -> Keychain {
        let keychain = try temporary.open()
        try keychain.setPasscode(passcode, current: nil, kdf: .cheapForTesting())
        for protection in ProtectionClass.allCases {
            _ = try keychain.add(
                password(
                    account: protection.rawValue, secret: "s-\(protection.rawValue)",
                    [.accessible: .string(protection.rawValue)])
            ).resultOrThrow()
        }
        return keychain
    }

    private func readableClasses(_ keychain: Keychain) -> [ProtectionClass: KeychainError.Code?] {
        var outcome: [ProtectionClass: KeychainError.Code?] = [:]
        for protection in ProtectionClass.allCases {
            outcome[protection] = status {
                let found = try keychain.find(query(account: protection.rawValue)).resultOrThrow()
                guard found.first?.secret?.string == "s-\(protection.rawValue)" else {
                    throw KeychainError(.itemNotFound, "missing")
                }
            }
        }
        return outcome
    }

    @Test func walkThroughBeforeFirstUnlockUnlockedAndLocked() throws {
        _ = try keychainWithEveryClass()
        let reopened = try temporary.open()
        #expect(reopened.lockState == .beforeFirstUnlock)
        for (protection, outcome) in readableClasses(reopened) {
            let expected: KeychainError.Code? = protection.isPasscodeBound ? .interactionNotAllowed : nil
            #expect(outcome == expected, "before first unlock: \(protection)")
        }

        try reopened.unlock(passcode: passcode)
        #expect(reopened.lockState == .unlocked)
        #expect(readableClasses(reopened).values.allSatisfy { $0 == nil })

        reopened.lock()
        #expect(reopened.lockState == .locked)
        let closed: Set<ProtectionClass> = [.whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly]
        for (protection, outcome) in readableClasses(reopened) {
            #expect(outcome == (closed.contains(protection) ? .interactionNotAllowed : nil), "locked: \(protection)")
        }

        try reopened.unlock(passcode: passcode)
        #expect(readableClasses(reopened).values.allSatisfy { $0 == nil })
    }

    @Test func addsIntoAClosedClassFailAsInteractionNotAllowedNotAsDuplicates() throws {
        let keychain = try keychainWithEveryClass()
        keychain.lock()
        #expect(
            status { try keychain.add(password(account: "ak", [.accessible: .string("ak")])).resultOrThrow() }
                == .interactionNotAllowed
        )
        #expect(
            status { try keychain.add(password(account: "new", [.accessible: .string("aku")])).resultOrThrow() }
                == .interactionNotAllowed)
        #expect(
            status { try keychain.add(password(account: "new", [.accessible: .string("ck")])).resultOrThrow() } == nil)
        #expect(
            status { try keychain.add(password(account: "dk", [.accessible: .string("dk")])).resultOrThrow() }
                == .duplicateItem)
    }

    @Test func listingWhileLockedShowsTheOpenClassesAndUpdatesStayStrict() throws {
        let keychain = try keychainWithEveryClass()
        keychain.lock()
        let listed = try keychain.find(ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("svc")]))
            .resultOrThrow()
        let open = Set(ProtectionClass.allCases.filter { $0.isOpen(in: .locked) }.map(\.rawValue))
        #expect(Set(listed.compactMap { $0.attributes[.account]?.stringValue }) == open)
        let all = ItemQuery(itemClass: .genericPassword, attributes: [.service: .string("svc")])
        #expect(
            status { try keychain.update(all, with: ItemChanges(attributes: [.comment: .string("c")])).resultOrThrow() }
                == .interactionNotAllowed)
        #expect(status { try keychain.delete(all).resultOrThrow() } == .interactionNotAllowed)
        #expect(try keychain.find(all).resultOrThrow().count == open.count, "a refused delete removes nothing")
    }

    @Test func updateAndDeleteOfAClosedClassAreRefused() throws {
        let keychain = try keychainWithEveryClass()
        keychain.lock()
        let akQuery = query(account: "ak")
        #expect(
            status { try keychain.update(akQuery, with: ItemChanges(secret: "x".secret)).resultOrThrow() }
                == .interactionNotAllowed)
        #expect(status { try keychain.delete(akQuery).resultOrThrow() } == .interactionNotAllowed)
        try keychain.unlock(passcode: passcode)
        #expect(try keychain.find(akQuery).resultOrThrow().first?.secret?.string == "s-ak")
    }

    @Test func wrongPasscodeIsAuthFailedAndUnlocksNothing() throws {
        _ = try keychainWithEveryClass()
        let reopened = try temporary.open()
        #expect(status { try reopened.unlock(passcode: "wrong".secret) } == .authFailed)
        #expect(status { try reopened.unlock(passcode: nil) } == .authFailed)
        #expect(reopened.lockState == .beforeFirstUnlock)
        #expect(status { try reopened.find(query(account: "ck")).resultOrThrow() } == .interactionNotAllowed)
    }

    @Test func keychainWithoutPasscodeOpensUnlocked() throws {
        let keychain = try temporary.open()
        #expect(keychain.lockState == .unlocked)
        #expect(!keychain.hasPasscode)
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        keychain.lock()
        #expect(status { try keychain.find(query(account: "a")).resultOrThrow() } == .interactionNotAllowed)
        try keychain.unlock(passcode: nil)
        #expect(try keychain.find(query(account: "a")).resultOrThrow().count == 1)
    }
}
