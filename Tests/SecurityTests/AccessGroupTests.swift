import ClavisTestSupport
import Foundation
import Security
import Testing

/// Access groups: the caller's entitlements decide where items go and which it sees.
@Suite(.preparedKeychain) struct AccessGroupTests {
    @Test func addWithoutAGroupUsesTheFirstEntitledGroup() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "a")
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
        ])
        #expect((result as? [String: Any])?[kSecAttrAccessGroup as String] as? String == TestKeychain.defaultGroup)
    }

    @Test func queryWithoutAGroupSearchesEveryEntitledGroup() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "own")
        addGenericPassword(
            service: service, account: "shared", extra: [kSecAttrAccessGroup as String: TestKeychain.sharedGroup])
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ])
        let groups = (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccessGroup as String] as? String }
        #expect(groups == [TestKeychain.defaultGroup, TestKeychain.sharedGroup])
    }

    @Test func queryNamingAGroupSeesOnlyThatGroup() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "own")
        addGenericPassword(
            service: service, account: "shared", extra: [kSecAttrAccessGroup as String: TestKeychain.sharedGroup])
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccessGroup as String: TestKeychain.sharedGroup, kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ])
        let accounts = (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccount as String] as? String }
        #expect(accounts == ["shared"])
    }

    /// `com.apple.security.application-groups` count as access groups after the keychain access groups and the
    /// application identifier, as on Apple platforms: items go there when named, and searches naming none cover it.
    @Test func anApplicationGroupIsAnAccessGroupAfterTheOthers() {
        let service = TestKeychain.uniqueService()
        #expect(
            addGenericPassword(
                service: service, account: "app-group", extra: [kSecAttrAccessGroup as String: TestKeychain.appGroup])
                == errSecSuccess)
        addGenericPassword(service: service, account: "own")
        let (_, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ])
        let groups = (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccessGroup as String] as? String }
        #expect(Set(groups) == [TestKeychain.defaultGroup, TestKeychain.appGroup])
        let (status, named) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccessGroup as String: TestKeychain.appGroup, kSecReturnData as String: true,
        ])
        #expect(status == errSecSuccess)
        #expect(named is Data)
    }

    @Test func groupTheCallerLacksIsMissingEntitlementForAllFourCalls() {
        let service = TestKeychain.uniqueService()
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "a", kSecAttrAccessGroup as String: TestKeychain.foreignGroup,
        ]
        #expect(SecItemAdd(query as CFDictionary, nil) == errSecMissingEntitlement)
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecMissingEntitlement)
        #expect(
            SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "x"] as CFDictionary)
                == errSecMissingEntitlement)
        #expect(SecItemDelete(query as CFDictionary) == errSecMissingEntitlement)
    }

    @Test func movingAnItemToAGroupTheCallerLacksIsMissingEntitlement() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "a")
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        let changes: [String: Any] = [kSecAttrAccessGroup as String: TestKeychain.foreignGroup]
        #expect(SecItemUpdate(query as CFDictionary, changes as CFDictionary) == errSecMissingEntitlement)
    }
}
