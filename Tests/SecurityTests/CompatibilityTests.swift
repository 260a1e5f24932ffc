import ClavisClient
import ClavisTestSupport
import Foundation
import Security
import Testing

/// The macOS file keychain accepts `kSecMatchLimit` and `kSecReturn*` in update and delete queries; the
/// data-protection keychain (a query with `kSecUseDataProtectionKeychain: true`, or every call under
/// `CLAVIS_COMPAT=ios`) refuses return keys in an update and a match limit in a delete, as Apple's `SecItemServer.c`.
///
@Suite(.preparedKeychain) struct CompatibilityTests {
    private func twoItems(_ function: String = #function) -> [String: Any] {
        let service = TestKeychain.uniqueService(function)
        addGenericPassword(service: service, account: "a")
        addGenericPassword(service: service, account: "b")
        return [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    }

    private let changes = [kSecAttrLabel as String: "L"] as CFDictionary

    private func count(_ query: [String: Any], label: String? = nil) -> Int {
        var all = query
        all[kSecMatchLimit as String] = kSecMatchLimitAll
        all[kSecReturnAttributes as String] = true
        if let label { all[kSecAttrLabel as String] = label }
        return (copyMatching(all).result as? [[String: Any]])?.count ?? 0
    }

    @Test func fileKeychainAcceptsLimitAndReturnKeysInUpdateAndDeleteAndActsOnEveryMatch() {
        let query = twoItems()
        var noisy = query
        noisy[kSecMatchLimit as String] = kSecMatchLimitOne
        noisy[kSecReturnData as String] = true
        #expect(SecItemUpdate(noisy as CFDictionary, changes) == errSecSuccess)
        #expect(count(query, label: "L") == 2)
        #expect(SecItemDelete(noisy as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
    }

    @Test func dataProtectionKeychainIsChosenPerCall() {
        let query = twoItems()
        var strict = query
        strict[kSecUseDataProtectionKeychain as String] = true
        strict[kSecReturnData as String] = true
        #expect(SecItemUpdate(strict as CFDictionary, changes) == errSecParam)
        #expect(count(query, label: "L") == 0)
        // The next call, without the key, follows the file keychain: no environment variable changed in between.
        var lenient = query
        lenient[kSecReturnData as String] = true
        #expect(SecItemUpdate(lenient as CFDictionary, changes) == errSecSuccess)
        #expect(count(query, label: "L") == 2)
    }

    @Test func dataProtectionUpdateRefusesEveryReturnKeyButTakesAMatchLimit() {
        let query = twoItems().merging([kSecUseDataProtectionKeychain as String: true]) { _, new in new }
        for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef] {
            let asking = query.merging([key as String: true]) { _, new in new }
            #expect(SecItemUpdate(asking as CFDictionary, changes) == errSecParam, "\(key)")
        }
        let notAsking = query.merging([kSecReturnData as String: false]) { _, new in new }
        #expect(SecItemUpdate(notAsking as CFDictionary, changes) == errSecSuccess)
        // SecItemServer.c has no check on a match limit in an update.
        let limited = query.merging([kSecMatchLimit as String: kSecMatchLimitOne]) { _, new in new }
        #expect(SecItemUpdate(limited as CFDictionary, changes) == errSecSuccess)
    }

    @Test func dataProtectionDeleteRefusesALimitButAllAndTakesReturnKeys() {
        let query = twoItems().merging([kSecUseDataProtectionKeychain as String: true]) { _, new in new }
        for limit in [kSecMatchLimitOne as Any, 2, 1] {
            let limited = query.merging([kSecMatchLimit as String: limit]) { _, new in new }
            #expect(SecItemDelete(limited as CFDictionary) == errSecParam)
        }
        #expect(count(query) == 2)
        let all = query.merging([
            kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        ]) { _, new in new }
        #expect(SecItemDelete(all as CFDictionary) == errSecSuccess)
        #expect(count(query) == 0)
    }

    @Test func processDefaultFromTheEnvironmentAppliesWithoutTheKey() {
        let query = twoItems()
        var strictByDefault = ClavisConfiguration.current
        strictByDefault.dataProtectionRulesByDefault = true  // what CLAVIS_COMPAT=ios sets
        ClavisConfiguration.withConfiguration(strictByDefault) {
            processDefaultRefusesTheKeys(query)
        }
    }

    private func processDefaultRefusesTheKeys(_ query: [String: Any]) {
        let withLimit = query.merging([kSecMatchLimit as String: kSecMatchLimitOne]) { _, new in new }
        let withReturn = query.merging([kSecReturnAttributes as String: true]) { _, new in new }
        #expect(SecItemUpdate(withReturn as CFDictionary, changes) == errSecParam)
        #expect(SecItemDelete(withLimit as CFDictionary) == errSecParam)
        // Plain queries behave the same under both, and copy-matching still takes both keys.
        #expect(SecItemCopyMatching(withLimit as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemUpdate(query as CFDictionary, changes) == errSecSuccess)
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
    }
}
