import ClavisTestSupport
import Foundation
import Security
import Testing

/// `SecItemUpdate` and `SecItemDelete` act on every match.
@Suite(.preparedKeychain) struct UpdateAndDeleteTests {
    private func secret(service: String, account: String) -> Data? {
        copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true,
        ]).result as? Data
    }

    @Test func updateReplacesTheSecret() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "alice", data: Data("old".utf8))
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice",
        ]
        let status = SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary)
        #expect(status == errSecSuccess)
        #expect(secret(service: service, account: "alice") == Data("new".utf8))
    }

    @Test func updateChangesEveryMatchingItem() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "a")
        addGenericPassword(service: service, account: "b")
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        #expect(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "L"] as CFDictionary) == errSecSuccess)
        let (_, result) = copyMatching(
            query.merging([kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]) {
                _, new in new
            })
        let labels = (result as? [[String: Any]] ?? []).map { $0[kSecAttrLabel as String] as? String }
        #expect(labels == ["L", "L"])
    }

    @Test func updateOfAMissingItemIsItemNotFound() {
        let service = TestKeychain.uniqueService()
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        #expect(
            SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data()] as CFDictionary)
                == errSecItemNotFound)
    }

    @Test func updateThatCollidesIsDuplicateItem() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "alice")
        addGenericPassword(service: service, account: "bob")
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "bob",
        ]
        let status = SecItemUpdate(query as CFDictionary, [kSecAttrAccount as String: "alice"] as CFDictionary)
        #expect(status == errSecDuplicateItem)
        #expect(secret(service: service, account: "bob") != nil)
    }

    @Test func updateWithAnAttributeTheClassLacksIsNoSuchAttr() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "alice")
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        #expect(
            SecItemUpdate(query as CFDictionary, [kSecAttrServer as String: "example.com"] as CFDictionary)
                == errSecNoSuchAttr)
        #expect(
            SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: Date()] as CFDictionary) == errSecParam)
    }

    @Test func deleteRemovesEveryMatchingItem() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "a")
        addGenericPassword(service: service, account: "b")
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
    }

    @Test func deleteOfAMissingItemIsItemNotFound() {
        let service = TestKeychain.uniqueService()
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
    }

    @Test func deleteIgnoresValueDataInTheQuery() {
        // The seeds delete with the same dictionary they add: kSecValueData is not a match criterion.
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "alice", data: Data("first".utf8))
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice", kSecValueData as String: Data("second".utf8),
        ]
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
    }
}
