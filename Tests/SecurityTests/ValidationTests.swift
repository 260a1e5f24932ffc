import ClavisTestSupport
import Foundation
import Security
import Testing

/// Malformed dictionaries get Apple's statuses.
@Suite(.preparedKeychain) struct ValidationTests {
    @Test func missingClassIsParam() {
        TestKeychain.prepare()
        let query: [String: Any] = [kSecAttrAccount as String: "a", kSecValueData as String: Data()]
        #expect(SecItemAdd(query as CFDictionary, nil) == errSecParam)
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecParam)
        #expect(SecItemDelete(query as CFDictionary) == errSecParam)
        #expect(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "x"] as CFDictionary) == errSecParam)
    }

    @Test func unknownClassIsNoSuchClass() {
        TestKeychain.prepare()
        let query: [String: Any] = [kSecClass as String: "nope", kSecAttrAccount as String: "a"]
        #expect(SecItemAdd(query as CFDictionary, nil) == errSecNoSuchClass)
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecNoSuchClass)
    }

    @Test func classOfTheWrongTypeIsParam() {
        TestKeychain.prepare()
        #expect(SecItemCopyMatching([kSecClass as String: 42] as CFDictionary, nil) == errSecParam)
    }

    @Test func attributeTheClassLacksIsNoSuchAttr() {
        let service = TestKeychain.uniqueService()
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrServer as String: "example.com"])
                == errSecNoSuchAttr)
        #expect(
            addGenericPassword(service: service, account: "a", extra: ["notAnAttribute": "x"]) == errSecNoSuchAttr)
        let internet: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrService as String: "s"]
        #expect(SecItemCopyMatching(internet as CFDictionary, nil) == errSecNoSuchAttr)
    }

    @Test func valueOfTheWrongTypeIsParam() {
        let service = TestKeychain.uniqueService()
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrAccount as String: Date()])
                == errSecParam)
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecValueData as String: "text"]) == errSecParam)
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrAccessible as String: "never"])
                == errSecParam)
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrAccessControl as String: "acl"])
                == errSecParam)
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrSynchronizable as String: "yes"])
                == errSecParam)
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrAccessGroup as String: 7])
                == errSecParam)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnData as String: "yes",
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecParam)
    }

    @Test func theFirstOffendingKeyInSortedOrderDecidesTheStatus() {
        let service = TestKeychain.uniqueService()
        // Many offending keys, so that whatever order the dictionary hands them out in, the one sorted first is
        // rarely the one handed out first: "aaaa" (no such attribute) sorts before every value of the wrong type,
        // and "acct" (a date where a string belongs) before every attribute the class lacks.
        let wrongTypes: [String: Any] = [
            kSecAttrAccount as String: Date(), kSecAttrService as String: Date(), kSecAttrDescription as String: Date(),
            kSecAttrComment as String: Date(), kSecAttrCreator as String: "x", kSecAttrType as String: "x",
            kSecAttrGeneric as String: Date(), kSecAttrIsInvisible as String: "x", kSecAttrIsNegative as String: "x",
        ]
        let unknown = Dictionary(uniqueKeysWithValues: (1...9).map { ("zz\($0)", "x" as Any) })
        #expect(
            addGenericPassword(service: service, account: "a", extra: wrongTypes.merging(["aaaa": "x"]) { $1 })
                == errSecNoSuchAttr)
        #expect(
            addGenericPassword(
                service: service, account: "a", extra: unknown.merging([kSecAttrAccount as String: Date()]) { $1 })
                == errSecParam)
    }

    @Test func mutableFoundationValuesAreReadAsWhatTheyHoldAndOpaqueOnesAreParam() throws {
        let service = TestKeychain.uniqueService()
        struct Opaque {}
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrLabel as String: Opaque()])
                == errSecParam)
        let attributes: [String: Any] = [
            kSecValueData as String: NSMutableData(data: Data("mutable secret".utf8)),
            kSecAttrLabel as String: NSMutableString(string: "mutable label"),
        ]
        #expect(addGenericPassword(service: service, account: "b", extra: attributes) == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "b", kSecReturnData as String: true, kSecReturnAttributes as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let found = try #require(result as? [String: Any])
        #expect(found[kSecValueData as String] as? Data == Data("mutable secret".utf8))
        #expect(found[kSecAttrLabel as String] as? String == "mutable label")
    }

    @Test func nullValueIsParam() {
        let service = TestKeychain.uniqueService()
        #expect(
            addGenericPassword(service: service, account: "a", extra: [kSecAttrLabel as String: NSNull()])
                == errSecParam)
    }

    @Test func accessibleAndAccessControlThatDisagreeAreParam() {
        let service = TestKeychain.uniqueService()
        let access = SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil)
        #expect(
            addGenericPassword(
                service: service, account: "a",
                extra: [
                    kSecAttrAccessControl as String: access as Any,
                    kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
                ]) == errSecParam)
        // Agreeing ones are stored: see AccessControlTests (the item needs a keychain with a passcode).
    }

    @Test func addingACertificateOrIdentityWithoutOneIsParamAndSearchingFindsNone() {
        TestKeychain.prepare()
        for itemClass in [kSecClassCertificate, kSecClassIdentity] {
            let query: [String: Any] = [kSecClass as String: itemClass, kSecAttrLabel as String: "x"]
            #expect(SecItemAdd(query as CFDictionary, nil) == errSecParam)
            #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
        }
    }

    @Test func oversizedAttributeIsDataTooLarge() {
        let service = TestKeychain.uniqueService()
        let huge = String(repeating: "x", count: 70_000)
        #expect(addGenericPassword(service: service, account: huge) == errSecDataTooLarge)
    }

    @Test func moreThan128KeysIsParam() {
        let service = TestKeychain.uniqueService()
        var extra: [String: Any] = [:]
        for index in 0..<130 { extra["key\(index)"] = index }
        #expect(addGenericPassword(service: service, account: "a", extra: extra) == errSecParam)
    }

    @Test func nonStringKeyIsParam() {
        TestKeychain.prepare()
        let dictionary = NSMutableDictionary()
        dictionary.setObject(kSecClassGenericPassword, forKey: kSecClass as String as AnyHashable)
        dictionary.setObject("x", forKey: NSNumber(value: 1) as AnyHashable)
        #expect(SecItemCopyMatching(dictionary, nil) == errSecParam)
    }

    @Test func aKeyThatOnlyBeginsLikeAKnownOneIsNotThatKey() {
        let service = TestKeychain.uniqueService()
        #expect(addGenericPassword(service: service, account: "a") == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "a",
        ]
        // Each shares its first eight bytes with a key Clavis reads (kSecUseAuthenticationUI,
        // kSecMatchCaseInsensitive, kSecValuePersistentRef) and is an option Clavis lacks, not that key.
        for name in ["u_AuthUIx", "m_CaseInsensitivity", "v_PersistentRefs"] {
            let status = SecItemCopyMatching(query.merging([name: true]) { _, new in new } as CFDictionary, nil)
            #expect(status == (name.hasPrefix("v_") ? errSecNoSuchAttr : errSecUnimplemented), "\(name)")
        }
        #expect(
            SecItemCopyMatching(
                query.merging([kSecMatchCaseInsensitive as String: true]) { _, new in new }
                    as CFDictionary, nil) == errSecSuccess)
    }
}
