import ClavisTestSupport
import Foundation
import Security
import Testing

/// Code that falls back to the macOS file-keychain API compiles and finds what a process with no file keychain
/// finds on macOS: no default keychain.
@Suite(.preparedKeychain) struct FileKeychainFallbackTests {
    @Test func thereIsNoDefaultFileKeychain() {
        var keychain: SecKeychain?
        #expect(SecKeychainCopyDefault(&keychain) == errSecNoDefaultKeychain)
        #expect(keychain == nil)
        let message = SecCopyErrorMessageString(errSecNoDefaultKeychain, nil) as String?
        #expect(message?.isEmpty == false)
    }

    /// The fallback as command-line tools write it: with a search list of the default keychain when there is one.
    @Test func aSearchWithoutASearchListFindsTheItemAndTheFallbackHasNoKeychainToAdd() {
        let service = TestKeychain.uniqueService()
        #expect(addGenericPassword(service: service, account: "fallback") == errSecSuccess)
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnData as String: true,
        ]
        var keychain: SecKeychain?
        if SecKeychainCopyDefault(&keychain) == errSecSuccess, let keychain {
            query[kSecMatchSearchList as String] = [keychain]
        }
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
    }

    /// A search list names file keychains, of which there are none: a query that gives one is answered
    /// `errSecUnimplemented`, never a search of something else.
    @Test func aSearchListIsUnimplemented() {
        let service = TestKeychain.uniqueService()
        #expect(addGenericPassword(service: service, account: "listed") == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnData as String: true, kSecMatchSearchList as String: [] as [Any],
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecUnimplemented)
        #expect(result == nil)
    }
}
