import ClavisTesting
import Security
import Testing

/// `lock()`, `unlock(passcode:)` and `restart()`: what each protection class answers in each state.
@Suite struct LockStateTests {
    @Test func afterLockWhenUnlockedReadsAreRefusedAndAfterFirstUnlockReadsSucceed() throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.run {
            try saveToken(token: "when-unlocked", service: "api")
            #expect(
                save("after-first-unlock", account: "refresh", accessible: kSecAttrAccessibleAfterFirstUnlock)
                    == errSecSuccess)

            try keychain.lock()
            #expect(throws: KeychainError.unexpectedStatus(errSecInteractionNotAllowed)) {
                try readToken(service: "api")
            }
            #expect(read(account: "refresh") == (errSecSuccess, "after-first-unlock"))

            try keychain.unlock(passcode: "1234")
            #expect(try readToken(service: "api") == "when-unlocked")
        }
    }

    @Test func afterRestartAfterFirstUnlockReadsFailUntilTheFirstUnlock() throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.run {
            #expect(
                save("refresh", account: "refresh", accessible: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
            #expect(save("always", account: "always", accessible: kSecAttrAccessibleAlways) == errSecSuccess)

            try keychain.restart()
            #expect(read(account: "refresh").0 == errSecInteractionNotAllowed)
            #expect(read(account: "always") == (errSecSuccess, "always"))

            try keychain.unlock()
            #expect(read(account: "refresh") == (errSecSuccess, "refresh"))
            try keychain.lock()
            #expect(read(account: "refresh") == (errSecSuccess, "refresh"), "a lock after the first unlock keeps it")
        }
    }
}
