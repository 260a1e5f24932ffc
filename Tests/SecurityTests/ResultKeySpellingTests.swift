import ClavisTestSupport
import Foundation
import Security
import Testing

/// A result dictionary is read with the key spelled any way keychain code spells it, as on Apple platforms, where a
/// `CFString` constant and the equal `String` are one `AnyHashable`.
@Suite(.preparedKeychain) struct ResultKeySpellingTests {
    /// The attributes of a fresh item, as `SecItemCopyMatching` returns them.
    private func attributes(account: String) throws -> CFTypeRef? {
        let service = TestKeychain.uniqueService()
        #expect(addGenericPassword(service: service, account: account) == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        return result
    }

    @Test func anAnyHashableDictionaryIsReadWithTheConstantOrAString() throws {
        let items = try attributes(account: "any-hashable") as? [[AnyHashable: Any]]
        let item = try #require(items?.first)
        #expect(item[kSecAttrAccount] as? String == "any-hashable")
        #expect(item[kSecAttrAccount as String] as? String == "any-hashable")
        #expect(item[String(kSecAttrAccount)] as? String == "any-hashable")
        // A wrapper's key listing: the accounts of every item, read with the constant in a closure.
        let accounts = items?.compactMap { ($0 as [AnyHashable: Any])[kSecAttrAccount] as? String }
        #expect(accounts == ["any-hashable"])
    }

    @Test func aStringKeyedDictionaryIsReadWithTheConstantAsAString() throws {
        let item = try #require((try attributes(account: "string-keyed") as? [[String: Any]])?.first)
        #expect(item[kSecAttrAccount as String] as? String == "string-keyed")
        #expect(item[String(kSecAttrAccount)] as? String == "string-keyed")
        #expect((item as [AnyHashable: Any])[kSecAttrAccount] as? String == "string-keyed")
    }

    @Test func anNSDictionaryIsReadWithEverySpelling() throws {
        let item = try #require((try attributes(account: "ns-dictionary") as? NSArray)?.firstObject as? NSDictionary)
        #expect(item[kSecAttrAccount] as? String == "ns-dictionary")
        #expect(item[kSecAttrAccount as String] as? String == "ns-dictionary")
        #expect(item[String(kSecAttrAccount)] as? String == "ns-dictionary")
        #expect((item as? [AnyHashable: Any])?[kSecAttrAccount] as? String == "ns-dictionary")
    }

    @Test func aDictionaryKeyedByTheConstantsIsReadWithStrings() {
        let built: [AnyHashable: Any] = [kSecAttrAccount: "built", kSecClass: kSecClassGenericPassword]
        #expect(built["acct"] as? String == "built")
        #expect(built[kSecAttrAccount as String] as? String == "built")
        #expect(AnyHashable(kSecAttrService) == AnyHashable("svce"))
        #expect(Set<AnyHashable>([kSecAttrAccount, "acct"]).count == 1)
    }
}
