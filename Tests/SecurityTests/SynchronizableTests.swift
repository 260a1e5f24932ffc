import Foundation
import Security
import Testing

/// `kSecAttrSynchronizable`: queries without it see only items that do not sync.
@Suite struct SynchronizableTests {
    @Test func queryWithoutSynchronizableSeesOnlyLocalItems() {
        let service = TestKeychain.uniqueService()
        #expect(
            addGenericPassword(service: service, account: "synced", extra: [kSecAttrSynchronizable as String: true])
                == errSecSuccess)
        #expect(addGenericPassword(service: service, account: "local") == errSecSuccess)
        let base: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        func accounts(_ extra: [String: Any]) -> [String] {
            let result = copyMatching(base.merging(extra) { _, new in new }).result as? [[String: Any]] ?? []
            return result.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
        }
        #expect(accounts([:]) == ["local"])
        #expect(accounts([kSecAttrSynchronizable as String: true]) == ["synced"])
        #expect(accounts([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) == ["local", "synced"])
    }

    @Test func synchronizableItemCannotBeThisDeviceOnly() {
        let service = TestKeychain.uniqueService()
        let status = addGenericPassword(
            service: service, account: "a",
            extra: [
                kSecAttrSynchronizable as String: true,
                kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            ])
        #expect(status == errSecParam)
    }

    @Test func addWithSynchronizableAnyIsParam() {
        let service = TestKeychain.uniqueService()
        let status = addGenericPassword(
            service: service, account: "a", extra: [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])
        #expect(status == errSecParam)
    }
}
