import ClavisTesting
import Foundation
import Security
import Testing

/// `moveToNewDevice()`: a backup restored on a new device brings what may travel, and `ThisDeviceOnly` items stay
/// behind; and the kit cleans up after itself.
@Suite struct NewDeviceTests {
    @Test func onANewDeviceThisDeviceOnlyTokensAreGoneAndAfterFirstUnlockOnesArrive() throws {
        let keychain = try TemporaryKeychain(passcode: "1234")
        try keychain.run {
            try saveToken(token: "device-bound", service: "api")
            // The same token, saved to travel: readToken finds it by its service.
            let travelling: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "sync",
                kSecAttrAccount as String: "auth_token", kSecValueData as String: Data("travels".utf8),
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ]
            #expect(SecItemAdd(travelling as CFDictionary, nil) == errSecSuccess)
        }

        try keychain.moveToNewDevice()
        try keychain.run {
            #expect(throws: KeychainError.unexpectedStatus(-25300)) { try readToken(service: "api") }
            let travelled = try readToken(service: "sync")
            #expect(travelled == "travels")
        }
    }

    @Test func theTemporaryFolderIsRemovedWithTheKit() throws {
        var keychain: TemporaryKeychain? = try TemporaryKeychain()
        let home = keychain?.configuration.home.path ?? ""
        try keychain?.run { try saveToken(token: "t", service: "api") }
        #expect(FileManager.default.fileExists(atPath: home))
        keychain = nil
        #expect(!FileManager.default.fileExists(atPath: home))
        #expect(!FileManager.default.fileExists(atPath: (home as NSString).deletingLastPathComponent))
    }
}
