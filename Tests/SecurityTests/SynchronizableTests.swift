import ClavisTestSupport
import Foundation
import Security
import Testing

/// `kSecAttrSynchronizable`: queries without it see only items that do not sync.
@Suite(.preparedKeychain) struct SynchronizableTests {
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

    /// Apple stores such an item (it is simply never synced); it keeps `kSecAttrSynchronizable` as given.
    @Test func synchronizableThisDeviceOnlyItemIsStoredWithItsFlag() {
        let service = TestKeychain.uniqueService()
        let status = addGenericPassword(
            service: service, account: "a",
            extra: [
                kSecAttrSynchronizable as String: true,
                kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            ])
        #expect(status == errSecSuccess)
        let (found, result) = copyMatching([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrSynchronizable as String: true, kSecReturnAttributes as String: true,
        ])
        #expect(found == errSecSuccess)
        let attributes = result as? [String: Any]
        #expect(attributes?[kSecAttrSynchronizable as String] as? Bool == true)
        #expect(
            attributes?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlockedThisDeviceOnly
                as String)
        // An update may make a local ThisDeviceOnly item synchronizable too.
        addGenericPassword(
            service: service, account: "b",
            extra: [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly])
        let query =
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: "b",
            ] as CFDictionary
        #expect(SecItemUpdate(query, [kSecAttrSynchronizable as String: true] as CFDictionary) == errSecSuccess)
    }

    @Test func addWithSynchronizableAnyIsParam() {
        let service = TestKeychain.uniqueService()
        let status = addGenericPassword(
            service: service, account: "a", extra: [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])
        #expect(status == errSecParam)
    }
}
