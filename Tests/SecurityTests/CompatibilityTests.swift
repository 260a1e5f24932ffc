import Foundation
import Security
import Testing

/// macOS accepts `kSecMatchLimit` and `kSecReturn*` in update and delete queries; `CLAVIS_COMPAT=ios` refuses them.
///
/// Serialized because `CLAVIS_COMPAT` is process-wide; no other test sends those keys to update or delete.
@Suite(.serialized) struct CompatibilityTests {
    private func twoItems(_ function: String = #function) -> [String: Any] {
        let service = TestKeychain.uniqueService(function)
        addGenericPassword(service: service, account: "a")
        addGenericPassword(service: service, account: "b")
        return [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    }

    @Test func macOSFlavourAcceptsLimitAndReturnKeysInUpdateAndDeleteAndActsOnEveryMatch() {
        let query = twoItems()
        setenv("CLAVIS_COMPAT", "macos", 1)
        var noisy = query
        noisy[kSecMatchLimit as String] = kSecMatchLimitOne
        noisy[kSecReturnData as String] = true
        #expect(SecItemUpdate(noisy as CFDictionary, [kSecAttrLabel as String: "L"] as CFDictionary) == errSecSuccess)
        let labelled = copyMatching(
            query.merging([
                kSecAttrLabel as String: "L", kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: true,
            ]) { _, new in new })
        #expect((labelled.result as? [[String: Any]])?.count == 2)
        #expect(SecItemDelete(noisy as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
    }

    @Test func iOSFlavourRefusesLimitAndReturnKeysInUpdateAndDelete() {
        let query = twoItems()
        setenv("CLAVIS_COMPAT", "ios", 1)
        defer { setenv("CLAVIS_COMPAT", "macos", 1) }
        let withLimit = query.merging([kSecMatchLimit as String: kSecMatchLimitAll]) { _, new in new }
        let withReturn = query.merging([kSecReturnAttributes as String: true]) { _, new in new }
        let changes = [kSecAttrLabel as String: "L"] as CFDictionary
        #expect(SecItemUpdate(withLimit as CFDictionary, changes) == errSecParam)
        #expect(SecItemUpdate(withReturn as CFDictionary, changes) == errSecParam)
        #expect(SecItemDelete(withLimit as CFDictionary) == errSecParam)
        #expect(SecItemDelete(withReturn as CFDictionary) == errSecParam)
        // Plain queries behave the same under both flavours, and copy-matching still takes both keys.
        #expect(SecItemCopyMatching(withLimit as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemUpdate(query as CFDictionary, changes) == errSecSuccess)
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
    }
}
