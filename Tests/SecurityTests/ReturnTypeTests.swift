import ClavisTestSupport
import Foundation
import Security
import Testing

/// What `SecItemCopyMatching` returns for each combination of `kSecReturn*` keys, with one match or all.
@Suite(.preparedKeychain) struct ReturnTypeTests {
    /// A service holding one item, `alice` with the secret "s3cret".
    private func serviceWithOneItem(_ function: String = #function) -> String {
        let service = TestKeychain.uniqueService(function)
        addGenericPassword(service: service, account: "alice", data: Data("s3cret".utf8))
        return service
    }

    private func query(_ service: String, _ returns: [CFString], limit: Any? = nil) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        for key in returns { query[key as String] = true }
        if let limit { query[kSecMatchLimit as String] = limit }
        return query
    }

    @Test func noReturnKeyGivesStatusOnly() {
        let service = serviceWithOneItem()
        let (status, result) = copyMatching(query(service, []))
        #expect(status == errSecSuccess)
        #expect(result == nil)
    }

    @Test func dataAloneIsData() {
        let (_, result) = copyMatching(query(serviceWithOneItem(), [kSecReturnData]))
        #expect(result as? Data == Data("s3cret".utf8))
    }

    @Test func persistentRefAloneIsData() {
        let (_, result) = copyMatching(query(serviceWithOneItem(), [kSecReturnPersistentRef]))
        #expect((result as? Data)?.isEmpty == false)
    }

    @Test func attributesAloneIsADictionaryWithoutTheSecret() {
        let (_, result) = copyMatching(query(serviceWithOneItem(), [kSecReturnAttributes]))
        let attributes = result as? [String: Any]
        #expect(attributes?[kSecAttrAccount as String] as? String == "alice")
        #expect(attributes?[kSecValueData as String] == nil)
    }

    @Test func refAloneOfAPasswordSucceedsWithAnEmptyResult() {
        let service = serviceWithOneItem()
        let (status, result) = copyMatching(query(service, [kSecReturnRef]))
        #expect(status == errSecSuccess)
        #expect(result == nil)
        let (allStatus, all) = copyMatching(query(service, [kSecReturnRef], limit: kSecMatchLimitAll))
        #expect(allStatus == errSecSuccess)
        #expect((all as? [Any])?.isEmpty == true)
    }

    @Test func refAloneOnAddSucceedsWithAnEmptyResult() {
        let service = TestKeychain.uniqueService()
        var result: CFTypeRef? = "untouched" as NSString
        let attributes: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice", kSecValueData as String: Data("s3cret".utf8),
            kSecReturnRef as String: true,
        ]
        #expect(SecItemAdd(attributes as CFDictionary, &result) == errSecSuccess)
        #expect(result == nil)
    }

    @Test func dataAndAttributesIsOneDictionaryWithValueData() {
        let (_, result) = copyMatching(query(serviceWithOneItem(), [kSecReturnData, kSecReturnAttributes]))
        let item = result as? [String: Any]
        #expect(item?[kSecAttrAccount as String] as? String == "alice")
        #expect(item?[kSecValueData as String] as? Data == Data("s3cret".utf8))
    }

    @Test func dataAndPersistentRefIsADictionaryWithBothValues() {
        let (_, result) = copyMatching(query(serviceWithOneItem(), [kSecReturnData, kSecReturnPersistentRef]))
        let item = result as? [String: Any]
        #expect(item?[kSecValueData as String] as? Data == Data("s3cret".utf8))
        #expect(item?[kSecValuePersistentRef as String] is Data)
        #expect(item?[kSecAttrAccount as String] == nil)
    }

    @Test func everyReturnKeyGivesAttributesDataAndPersistentRef() {
        let returns = [kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef, kSecReturnRef]
        let (_, result) = copyMatching(query(serviceWithOneItem(), returns))
        let item = result as? [String: Any]
        #expect(item?[kSecAttrAccount as String] as? String == "alice")
        #expect(item?[kSecValueData as String] as? Data == Data("s3cret".utf8))
        #expect(item?[kSecValuePersistentRef as String] is Data)
    }

    @Test func limitAllGivesAnArrayEvenForOneMatch() {
        let service = serviceWithOneItem()
        let data = copyMatching(query(service, [kSecReturnData], limit: kSecMatchLimitAll)).result
        #expect(data as? [Data] == [Data("s3cret".utf8)])
        let references = copyMatching(query(service, [kSecReturnPersistentRef], limit: kSecMatchLimitAll)).result
        #expect((references as? [Data])?.count == 1)
        let attributes = copyMatching(query(service, [kSecReturnAttributes], limit: kSecMatchLimitAll)).result
        #expect((attributes as? [[String: Any]])?.first?[kSecAttrAccount as String] as? String == "alice")
        let both = copyMatching(query(service, [kSecReturnAttributes, kSecReturnData], limit: kSecMatchLimitAll))
        #expect((both.result as? [[String: Any]])?.first?[kSecValueData as String] as? Data == Data("s3cret".utf8))
    }

    @Test func numericLimitAboveOneGivesAnArray() {
        let service = serviceWithOneItem()
        let (_, result) = copyMatching(query(service, [kSecReturnData], limit: 5))
        #expect(result as? [Data] == [Data("s3cret".utf8)])
    }

    @Test func numericLimitOfOneGivesASingleValue() {
        let service = serviceWithOneItem()
        let (_, result) = copyMatching(query(service, [kSecReturnData], limit: 1))
        #expect(result as? Data == Data("s3cret".utf8))
    }

    @Test func limitOneWithSeveralMatchesGivesTheFirstAdded() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "first", data: Data("1".utf8))
        addGenericPassword(service: service, account: "second", data: Data("2".utf8))
        let (_, result) = copyMatching(query(service, [kSecReturnData], limit: kSecMatchLimitOne))
        #expect(result as? Data == Data("1".utf8))
    }

    @Test func badMatchLimitIsParam() {
        let service = serviceWithOneItem()
        #expect(copyMatching(query(service, [kSecReturnData], limit: 0)).status == errSecParam)
        #expect(copyMatching(query(service, [kSecReturnData], limit: "m_LimitSome")).status == errSecParam)
        #expect(copyMatching(query(service, [kSecReturnData], limit: Data())).status == errSecParam)
    }
}

/// Every non-empty combination of the four `kSecReturn*` keys, with limit one and limit all.
@Suite(.preparedKeychain) struct ReturnCombinationTests {
    nonisolated(unsafe) static let keys: [CFString] = [
        kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef, kSecReturnRef,
    ]

    @Test(arguments: 1..<16, [true, false])
    func everyCombinationHasApplesShape(mask: Int, all: Bool) {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "alice", data: Data("s3cret".utf8))
        let chosen = Self.keys.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecMatchLimit as String: all ? kSecMatchLimitAll : kSecMatchLimitOne,
        ]
        for key in chosen { query[key as String] = true }
        let (status, result) = copyMatching(query)
        #expect(status == errSecSuccess)
        if chosen == [kSecReturnRef] {
            // A password item has no reference object: nothing, or an empty array, comes back.
            #expect(all ? (result as? [Any])?.isEmpty == true : result == nil)
            return
        }
        let entry: Any?
        if all {
            let array = result as? [Any]
            #expect(array?.count == 1, "limit all must give an array")
            entry = array?.first
        } else {
            #expect(!(result is NSArray), "limit one must not give an array")
            entry = result
        }
        let single = chosen.count == 1
        if single && (chosen[0] == kSecReturnData || chosen[0] == kSecReturnPersistentRef) {
            #expect(entry is Data)
            if chosen[0] == kSecReturnData { #expect(entry as? Data == Data("s3cret".utf8)) }
        } else {
            let dictionary = entry as? [String: Any]
            #expect(dictionary != nil)
            let wantsAttributes = chosen.contains(kSecReturnAttributes)
            #expect((dictionary?[kSecAttrAccount as String] != nil) == wantsAttributes)
            #expect(
                (dictionary?[kSecValueData as String] as? Data == Data("s3cret".utf8))
                    == chosen.contains(kSecReturnData))
            #expect((dictionary?[kSecValuePersistentRef as String] is Data) == chosen.contains(kSecReturnPersistentRef))
            #expect(dictionary?[kSecValueRef as String] == nil)
        }
    }
}
