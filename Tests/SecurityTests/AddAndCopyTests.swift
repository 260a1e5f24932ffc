import ClavisTestSupport
import Foundation
import Security
import Testing

/// Adding and reading generic passwords.
@Suite(.preparedKeychain) struct AddAndCopyTests {
    @Test func addedSecretReadsBack() {
        let service = TestKeychain.uniqueService()
        #expect(addGenericPassword(service: service, account: "alice", data: Data("hunter2".utf8)) == errSecSuccess)
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice", kSecReturnData as String: true,
        ])
        #expect(status == errSecSuccess)
        #expect(result as? Data == Data("hunter2".utf8))
    }

    @Test func addingTheSameAccountAndServiceTwiceIsDuplicateItem() {
        let service = TestKeychain.uniqueService()
        #expect(addGenericPassword(service: service, account: "alice") == errSecSuccess)
        #expect(addGenericPassword(service: service, account: "alice") == errSecDuplicateItem)
        #expect(addGenericPassword(service: service, account: "bob") == errSecSuccess)
    }

    @Test func copyMatchingReturnsItemNotFoundForMissingAccount() {
        let service = TestKeychain.uniqueService()
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "nobody", kSecReturnData as String: true,
        ])
        #expect(status == errSecItemNotFound)
        #expect(result == nil)
    }

    @Test func copyMatchingAcceptsANilResultPointer() {
        let service = TestKeychain.uniqueService()
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnData as String: true,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
        addGenericPassword(service: service, account: "alice")
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecSuccess)
    }

    @Test func emptySecretIsStoredAndReadBackEmpty() {
        let service = TestKeychain.uniqueService()
        #expect(addGenericPassword(service: service, account: "alice", data: Data()) == errSecSuccess)
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnData as String: true,
        ])
        #expect(status == errSecSuccess)
        #expect(result as? Data == Data())
    }

    @Test func itemWithoutValueDataHasAnEmptySecret() {
        let service = TestKeychain.uniqueService()
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice",
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnData as String: true,
        ])
        #expect(result as? Data == Data())
    }

    @Test func dataProtectionKeychainKeyIsAcceptedAndIgnored() {
        let service = TestKeychain.uniqueService()
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecUseDataProtectionKeychain as String: true])
                == errSecSuccess)
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecUseDataProtectionKeychain as String: true, kSecReturnData as String: true,
        ])
        #expect(status == errSecSuccess)
        #expect(result as? Data == Data("secret".utf8))
    }

    @Test func matchLimitAllReturnsItemsInInsertionOrder() {
        let service = TestKeychain.uniqueService()
        let accounts = ["delta", "alpha", "charlie", "bravo"]
        for account in accounts {
            addGenericPassword(service: service, account: account)
        }
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ])
        #expect(status == errSecSuccess)
        let items = result as? [[String: Any]] ?? []
        #expect(items.map { $0[kSecAttrAccount as String] as? String } == accounts)
    }

    @Test func numericMatchLimitCapsTheResults() {
        let service = TestKeychain.uniqueService()
        for account in ["a", "b", "c"] { addGenericPassword(service: service, account: account) }
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: 2,
        ])
        #expect((result as? [[String: Any]])?.count == 2)
    }

    @Test func attributesComeBackWithApplesKeysAndTypes() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(
            service: service, account: "alice",
            extra: [
                kSecAttrLabel as String: "Alice's token", kSecAttrGeneric as String: Data([1, 2, 3]),
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
            ])
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
        ])
        #expect(status == errSecSuccess)
        let attributes = result as? [String: Any] ?? [:]
        #expect(attributes[kSecAttrAccount as String] as? String == "alice")
        #expect(attributes[kSecAttrService as String] as? String == service)
        #expect(attributes[kSecAttrLabel as String] as? String == "Alice's token")
        #expect(attributes[kSecAttrGeneric as String] as? Data == Data([1, 2, 3]))
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
        #expect(attributes[kSecAttrAccessGroup as String] as? String == TestKeychain.defaultGroup)
        #expect(attributes[kSecAttrSynchronizable as String] as? Bool == false)
        #expect(attributes[kSecAttrCreationDate as String] is Date)
        #expect(attributes[kSecAttrModificationDate as String] is Date)
        #expect(attributes[kSecValueData as String] == nil)
    }

    @Test func defaultProtectionIsWhenUnlocked() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "alice")
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
        ])
        #expect((result as? [String: Any])?[kSecAttrAccessible as String] as? String == "ak")
    }

    @Test func internetPasswordsMatchByServerProtocolAndPort() {
        let server = "\(UUID().uuidString.lowercased()).example.com"
        let add: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrAccount as String: "alice", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
            kSecAttrPort as String: 443, kSecAttrPath as String: "/login",
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
            kSecValueData as String: Data("pw".utf8),
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
        let (status, result) = copyMatching([
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrPort as String: 443, kSecReturnAttributes as String: true, kSecReturnData as String: true,
        ])
        #expect(status == errSecSuccess)
        let item = result as? [String: Any] ?? [:]
        #expect(item[kSecValueData as String] as? Data == Data("pw".utf8))
        #expect(item[kSecAttrPort as String] as? Int == 443)
        #expect(item[kSecAttrProtocol as String] as? String == "htps")
        #expect(
            copyMatching([
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
                kSecAttrPort as String: 8443,
            ]).status == errSecItemNotFound)
    }

    @Test func addCanReturnTheNewItemsAttributes() {
        let service = TestKeychain.uniqueService()
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice", kSecValueData as String: Data("x".utf8),
            kSecReturnAttributes as String: true, kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemAdd(add as CFDictionary, &result) == errSecSuccess)
        let item = result as? [String: Any] ?? [:]
        #expect(item[kSecAttrAccount as String] as? String == "alice")
        #expect(item[kSecValueData as String] as? Data == Data("x".utf8))
    }
}
