import ClavisTesting
import LocalAuthentication
import Testing

/// `setPasscode(_:)`, `removePasscode()` and the passcode lockout, waited out with `advanceClock(by:)`.
@Suite struct PasscodeTests {
    @Test func withoutAPasscodeWhenPasscodeSetItemsAreRefusedAndOwnerAuthenticationIsUnavailable() throws {
        let keychain = try TemporaryKeychain()
        try keychain.run {
            let accessible = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            #expect(save("s", account: "bound", accessible: accessible) != errSecSuccess)
            #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: nil))

            try keychain.setPasscode("1234")
            #expect(LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: nil))
            #expect(save("s", account: "bound", accessible: accessible) == errSecSuccess)
            #expect(read(account: "bound") == (errSecSuccess, "s"))
        }
    }

    @Test func removingThePasscodeDeletesWhenPasscodeSetItemsAndKeepsTheOthers() throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.run {
            let accessible = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            #expect(save("bound", account: "bound", accessible: accessible) == errSecSuccess)
            try saveToken(token: "token", service: "api")

            try keychain.removePasscode()
            #expect(read(account: "bound").0 == errSecItemNotFound)
            #expect(try readToken(service: "api") == "token")
        }
    }

    @Test func aChangedPasscodeUnlocksAndTheOldOneNoLonger() throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.run {
            try saveToken(token: "token", service: "api")
            try keychain.setPasscode("5678")
            try keychain.lock()
            #expect(throws: (any Error).self) { try keychain.unlock(passcode: "1234") }
            try keychain.unlock(passcode: "5678")
            #expect(try readToken(service: "api") == "token")
        }
    }

    @Test func aPasscodeLockoutEndsWhenTheClockHasMovedPastIt() throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.run {
            try saveToken(token: "token", service: "api")
            try keychain.lock()
            for _ in 0..<5 {
                #expect(throws: (any Error).self) { try keychain.unlock(passcode: "0000") }
                #expect(throws: KeychainError.unexpectedStatus(errSecInteractionNotAllowed)) {
                    try readToken(service: "api")
                }
            }
            // Locked out: even the right passcode is not checked.
            let refused = #expect(throws: (any Error).self) { try keychain.unlock(passcode: "1234") }
            #expect(String(describing: refused).contains("locked out"))

            // Half the minute's lockout (the rest leaves room for a busy machine's own seconds), then past its end.
            keychain.advanceClock(by: .seconds(30))
            #expect(throws: (any Error).self) { try keychain.unlock(passcode: "1234") }
            keychain.advanceClock(by: .seconds(31))
            try keychain.unlock(passcode: "1234")
            #expect(try readToken(service: "api") == "token")
        }
    }
}
