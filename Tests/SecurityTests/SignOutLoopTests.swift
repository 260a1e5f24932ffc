import ClavisTestSupport
import Foundation
import Security
import Testing

/// Apps delete every class on sign-out; a search or delete in a class the keychain holds none of (certificates and
/// identities are not stored yet) finds none, as Apple's keychain answers.
@Suite(.preparedKeychain) struct SignOutLoopTests {
    private let classes = [
        kSecClassGenericPassword, kSecClassInternetPassword, kSecClassCertificate, kSecClassKey, kSecClassIdentity,
    ]

    private func deleteEveryClass() -> [OSStatus] {
        classes.map { SecItemDelete([kSecClass as String: $0] as CFDictionary) }
    }

    @Test func deletingEveryClassOfAnEmptyKeychainFindsNothingInEach() throws {
        TestKeychain.prepare()
        let home = try makeTemporaryFolder("clavis-sign-out") + "/home"
        withKeychainHome(home) {
            #expect(deleteEveryClass() == Array(repeating: errSecItemNotFound, count: 5))
        }
    }

    @Test func theLoopDeletesAPasswordAndFindsNothingElse() throws {
        TestKeychain.prepare()
        let home = try makeTemporaryFolder("clavis-sign-out") + "/home"
        withKeychainHome(home) {
            #expect(addGenericPassword(service: "session", account: "token") == errSecSuccess)
            #expect(
                deleteEveryClass() == [
                    errSecSuccess, errSecItemNotFound, errSecItemNotFound, errSecItemNotFound, errSecItemNotFound,
                ])
            #expect(deleteEveryClass() == Array(repeating: errSecItemNotFound, count: 5))
        }
    }

    @Test func searchesAndUpdatesOfClassesWithoutItemsFindNothing() {
        TestKeychain.prepare()
        let key: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.example.key".utf8),
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(key as CFDictionary, &result) == errSecItemNotFound)
        #expect(result == nil)
        let certificate: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "c"]
        #expect(
            SecItemUpdate(certificate as CFDictionary, [kSecAttrLabel as String: "d"] as CFDictionary)
                == errSecItemNotFound)
        // A group the caller lacks is still refused first.
        let foreign: [String: Any] = [
            kSecClass as String: kSecClassIdentity, kSecAttrAccessGroup as String: TestKeychain.foreignGroup,
        ]
        #expect(SecItemDelete(foreign as CFDictionary) == errSecMissingEntitlement)
    }
}
