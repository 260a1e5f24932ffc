import ClavisCore
import ClavisCrypto
import ClavisStore
import Testing

@Suite struct PasscodeTests {
    let temporary = TemporaryHome()

    @Test func changingThePasscodeKeepsEveryItemAndRejectsTheOldOne() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("1111".secret, current: nil, kdf: .cheapForTesting())
        _ = try keychain.add(password(account: "a", secret: "kept")).resultOrThrow()
        #expect(status { try keychain.setPasscode("2222".secret, current: "9999".secret) } == .authFailed)
        try keychain.setPasscode("2222".secret, current: "1111".secret)

        let reopened = try temporary.open()
        #expect(status { try reopened.unlock(passcode: "1111".secret) } == .authFailed)
        try reopened.unlock(passcode: "2222".secret)
        #expect(try reopened.find(query(account: "a")).resultOrThrow().first?.secret?.string == "kept")
    }

    @Test func passcodeChangeRewrapsClassKeysWithoutTouchingItems() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("1111".secret, current: nil, kdf: .cheapForTesting())
        _ = try keychain.add(password(account: "a")).resultOrThrow()
        let inspector = try StoreInspector(temporary.home)
        let id = try #require(try inspector.itemIDs().first)
        let before = try ["wrapped_key", "attributes", "secret"].map { try inspector.blob($0, id: id) }
        let keybagBefore = try inspector.connection.rows("SELECT wrapped_key FROM keybag ORDER BY class")
        try keychain.setPasscode("2222".secret, current: "1111".secret)
        let after = try ["wrapped_key", "attributes", "secret"].map { try inspector.blob($0, id: id) }
        let keybagAfter = try inspector.connection.rows("SELECT wrapped_key FROM keybag ORDER BY class")
        #expect(before == after, "items are not re-encrypted")
        #expect(keybagBefore != keybagAfter, "class keys are re-wrapped")
    }

    @Test func removingThePasscodeErasesPasscodeBoundItemsAndRefusesNewOnes() throws {
        let keychain = try temporary.open()
        #expect(
            status { try keychain.add(password(account: "p", [.accessible: .string("akpu")])).resultOrThrow() }
                == .notAvailable,
            "no passcode set yet")
        try keychain.setPasscode("1111".secret, current: nil, kdf: .cheapForTesting())
        _ = try keychain.add(password(account: "p", [.accessible: .string("akpu")])).resultOrThrow()
        _ = try keychain.add(password(account: "q", [.accessible: .string("ak")])).resultOrThrow()
        try keychain.setPasscode(nil, current: "1111".secret)
        #expect(!keychain.hasPasscode)
        #expect(try keychain.find(query(account: "p")).resultOrThrow().isEmpty)
        #expect(try keychain.find(query(account: "q")).resultOrThrow().count == 1)
        #expect(
            status { try keychain.add(password(account: "p2", [.accessible: .string("akpu")])).resultOrThrow() }
                == .notAvailable)

        let reopened = try temporary.open()
        #expect(reopened.lockState == .unlocked, "without a passcode the keychain opens unlocked")
        #expect(try reopened.find(query(account: "q")).resultOrThrow().count == 1)
    }

    @Test func passcodeRemovalSeenByAnotherOpenInstanceRefusesPasscodeItems() throws {
        let first = try temporary.open()
        try first.setPasscode("1111".secret, current: nil, kdf: .cheapForTesting())
        let second = try temporary.open()
        try second.unlock(passcode: "1111".secret)
        try first.setPasscode(nil, current: "1111".secret)
        #expect(
            status { try second.add(password(account: "p", [.accessible: .string("akpu")])).resultOrThrow() }
                == .notAvailable)
    }

    @Test func emptyOrOverlongNewPasscodeIsRejected() throws {
        let keychain = try temporary.open()
        #expect(status { try keychain.setPasscode("".secret, current: nil, kdf: .cheapForTesting()) } == .param)
        let overlong = String(repeating: "p", count: KeychainLimits.passcodeBytes + 1).secret
        #expect(status { try keychain.setPasscode(overlong, current: nil, kdf: .cheapForTesting()) } == .param)
        let longest = String(repeating: "p", count: KeychainLimits.passcodeBytes).secret
        try keychain.setPasscode(longest, current: nil, kdf: .cheapForTesting())
        try keychain.verifyPasscode(longest)
    }

    @Test func theRecordedKDFIsTheOneTheKeychainWasGiven() throws {
        let keychain = try temporary.open()
        try keychain.setPasscode("1111".secret, current: nil, kdf: .cheapForTesting())
        let inspector = try StoreInspector(temporary.home)
        let recorded = try #require(
            try inspector.connection.scalar("SELECT value FROM settings WHERE name = 'passcode_kdf'")?.blob)
        let text = String(decoding: recorded, as: UTF8.self)
        #expect(text.contains("scrypt"))
        #expect(text.contains("\"costLog2\":10"))
    }
}
