import ClavisTestSupport
import Foundation
import Security
import Testing

/// `kSecValuePersistentRef`: finding, updating and deleting an item by its persistent reference.
@Suite(.preparedKeychain) struct PersistentReferenceTests {
    private func addReturningReference(service: String, account: String) -> Data? {
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: Data("v1".utf8),
            kSecReturnPersistentRef as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemAdd(add as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? Data
    }

    @Test func persistentReferenceAloneFindsTheItem() throws {
        let service = TestKeychain.uniqueService()
        let reference = try #require(addReturningReference(service: service, account: "alice"))
        let (status, result) = copyMatching([
            kSecValuePersistentRef as String: reference, kSecReturnAttributes as String: true,
            kSecReturnData as String: true,
        ])
        #expect(status == errSecSuccess)
        let item = result as? [String: Any]
        #expect(item?[kSecAttrAccount as String] as? String == "alice")
        #expect(item?[kSecValueData as String] as? Data == Data("v1".utf8))
    }

    @Test func persistentReferenceAloneFindsAndDeletesASynchronizableItem() throws {
        let service = TestKeychain.uniqueService()
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "synced", kSecValueData as String: Data("v1".utf8),
            kSecAttrSynchronizable as String: true, kSecReturnPersistentRef as String: true,
        ]
        var added: CFTypeRef?
        #expect(SecItemAdd(add as CFDictionary, &added) == errSecSuccess)
        let reference = try #require(added as? Data)
        let (status, result) = copyMatching([
            kSecValuePersistentRef as String: reference, kSecReturnAttributes as String: true,
        ])
        #expect(status == errSecSuccess)
        #expect((result as? [String: Any])?[kSecAttrAccount as String] as? String == "synced")
        #expect(SecItemDelete([kSecValuePersistentRef as String: reference] as CFDictionary) == errSecSuccess)
        #expect(copyMatching([kSecValuePersistentRef as String: reference]).0 == errSecItemNotFound)
    }

    @Test func persistentReferenceFromCopyMatchingMatchesTheOneFromAdd() throws {
        let service = TestKeychain.uniqueService()
        let reference = try #require(addReturningReference(service: service, account: "alice"))
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnPersistentRef as String: true,
        ])
        #expect(result as? Data == reference)
    }

    @Test func updateByPersistentReferenceChangesOnlyThatItem() throws {
        let service = TestKeychain.uniqueService()
        let reference = try #require(addReturningReference(service: service, account: "alice"))
        _ = addReturningReference(service: service, account: "bob")
        let status = SecItemUpdate(
            [kSecValuePersistentRef as String: reference] as CFDictionary,
            [kSecValueData as String: Data("v2".utf8)] as CFDictionary)
        #expect(status == errSecSuccess)
        func secret(_ account: String) -> Data? {
            copyMatching([
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account, kSecReturnData as String: true,
            ]).result as? Data
        }
        #expect(secret("alice") == Data("v2".utf8))
        #expect(secret("bob") == Data("v1".utf8))
    }

    @Test func deleteByPersistentReferenceThenItIsGone() throws {
        let service = TestKeychain.uniqueService()
        let reference = try #require(addReturningReference(service: service, account: "alice"))
        let query = [kSecValuePersistentRef as String: reference] as CFDictionary
        #expect(SecItemDelete(query) == errSecSuccess)
        #expect(SecItemCopyMatching(query, nil) == errSecItemNotFound)
        #expect(SecItemDelete(query) == errSecItemNotFound)
    }

    @Test func unknownPersistentReferenceIsItemNotFound() {
        TestKeychain.prepare()
        let bogus = Data("genp".utf8) + Data(repeating: 7, count: 16)
        #expect(copyMatching([kSecValuePersistentRef as String: bogus]).status == errSecItemNotFound)
        #expect(copyMatching([kSecValuePersistentRef as String: Data([1, 2, 3])]).status == errSecItemNotFound)
    }

    @Test func persistentReferenceOfTheWrongTypeIsParam() {
        TestKeychain.prepare()
        #expect(copyMatching([kSecValuePersistentRef as String: "not data"]).status == errSecParam)
    }
}
