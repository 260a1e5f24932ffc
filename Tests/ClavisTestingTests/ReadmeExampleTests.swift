// The example of the README's "Testing your app's keychain code", as it stands there.
import ClavisTesting
import LocalAuthentication
import Testing

@Suite struct ReadmeExampleTests {
    @Test func theTokensOutliveALockButNotAMoveOrAnEnrolmentChange() throws {
        let keychain = try TemporaryKeychain(
            app: TestApp(applicationIdentifier: "TEAM123456.com.example.app"), passcode: "1234")
        try keychain.enrolBiometry(["right-index"])
        try keychain.run {
            try saveToken(token: "t0k3n", service: "api")
            try saveWithBiometry(data: Data("vault".utf8), key: "vault")
            try keychain.lock()
            #expect(throws: KeychainError.unexpectedStatus(errSecInteractionNotAllowed)) {
                try readToken(service: "api")
            }
            try keychain.unlock(passcode: "1234")
            let token = try readToken(service: "api")
            #expect(token == "t0k3n")

            try keychain.changeEnrolment()  // a finger was added in Settings
            let vault: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "vault",
                kSecReturnData as String: true,
            ]
            var secret: AnyObject?
            #expect(SecItemCopyMatching(vault as CFDictionary, &secret) == errSecAuthFailed)

            try keychain.moveToNewDevice()  // saveToken's item is ThisDeviceOnly: it stays behind
            #expect(throws: KeychainError.unexpectedStatus(errSecItemNotFound)) {
                try readToken(service: "api")
            }
        }
    }
}
