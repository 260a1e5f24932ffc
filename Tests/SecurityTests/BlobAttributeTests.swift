import ClavisTestSupport
import Foundation
import Security
import Testing

/// Account, service, label, description, comment, generic, server, security domain and path are blobs in Apple's
/// schema: a `Data` value is stored and comes back as `Data`, a `String` as a `String`, and the type is part of the
/// value, so the string "k" and the bytes of "k" are two different accounts.
@Suite(.preparedKeychain) struct BlobAttributeTests {
    private let binaryAccount = Data([0x00, 0xFF, 0x6B, 0x0A])

    private func attributes(_ query: [String: Any]) -> [[String: Any]] {
        var all = query
        all[kSecMatchLimit as String] = kSecMatchLimitAll
        all[kSecReturnAttributes as String] = true
        return (copyMatching(all).result as? [[String: Any]]) ?? []
    }

    @Test func aDataAccountRoundTripsAsIdenticalDataThroughAddSearchUpdateAndDelete() {
        let service = TestKeychain.uniqueService()
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: binaryAccount,
        ]
        var added: CFTypeRef?
        let add = item.merging([
            kSecValueData as String: Data("one".utf8), kSecReturnAttributes as String: true,
        ]) { _, new in new }
        #expect(SecItemAdd(add as CFDictionary, &added) == errSecSuccess)
        #expect((added as? [String: Any])?[kSecAttrAccount as String] as? Data == binaryAccount)

        let found = attributes(item)
        #expect(found.count == 1)
        #expect(found.first?[kSecAttrAccount as String] as? Data == binaryAccount)
        #expect(!(found.first?[kSecAttrAccount as String] is String))

        let changes = [kSecValueData as String: Data("two".utf8)] as CFDictionary
        #expect(SecItemUpdate(item as CFDictionary, changes) == errSecSuccess)
        let read = copyMatching(item.merging([kSecReturnData as String: true]) { _, new in new })
        #expect(read.result as? Data == Data("two".utf8))

        #expect(SecItemDelete(item as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(item as CFDictionary, nil) == errSecItemNotFound)
    }

    @Test func aStringAccountStillComesBackAsAString() {
        let service = TestKeychain.uniqueService()
        addGenericPassword(service: service, account: "alice")
        let found = attributes([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service])
        #expect(found.first?[kSecAttrAccount as String] as? String == "alice")
        #expect(found.first?[kSecAttrService as String] as? String == service)
    }

    @Test func aStringAccountAndTheDataOfItsBytesAreTwoItems() {
        let service = TestKeychain.uniqueService()
        let text: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "k",
        ]
        var bytes = text
        bytes[kSecAttrAccount as String] = Data("k".utf8)
        #expect(
            SecItemAdd(text.merging([kSecValueData as String: Data("text".utf8)]) { _, n in n } as CFDictionary, nil)
                == 0)
        #expect(
            SecItemAdd(bytes.merging([kSecValueData as String: Data("bytes".utf8)]) { _, n in n } as CFDictionary, nil)
                == 0)
        #expect(
            SecItemAdd(text.merging([kSecValueData as String: Data("again".utf8)]) { _, n in n } as CFDictionary, nil)
                == errSecDuplicateItem)

        #expect(
            copyMatching(text.merging([kSecReturnData as String: true]) { _, n in n }).result as? Data
                == Data("text".utf8))
        #expect(
            copyMatching(bytes.merging([kSecReturnData as String: true]) { _, n in n }).result as? Data
                == Data("bytes".utf8))
        #expect(attributes(text).count == 1)
        #expect(attributes(bytes).count == 1)
        #expect(
            attributes([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]).count == 2)

        #expect(SecItemDelete(bytes as CFDictionary) == errSecSuccess)
        #expect(SecItemCopyMatching(text as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemCopyMatching(bytes as CFDictionary, nil) == errSecItemNotFound)
    }

    @Test func everyBlobAttributeKeepsTheTypeItWasGiven() {
        let service = TestKeychain.uniqueService()
        let blob = Data([0xDE, 0xAD, 0xBE, 0xEF])
        let extra: [String: Any] = [
            kSecAttrLabel as String: blob, kSecAttrDescription as String: "described",
            kSecAttrComment as String: blob, kSecAttrGeneric as String: "generic text",
        ]
        #expect(addGenericPassword(service: service, account: "a", extra: extra) == errSecSuccess)
        let found = attributes([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service])
        #expect(found.first?[kSecAttrLabel as String] as? Data == blob)
        #expect(found.first?[kSecAttrDescription as String] as? String == "described")
        #expect(found.first?[kSecAttrComment as String] as? Data == blob)
        #expect(found.first?[kSecAttrGeneric as String] as? String == "generic text")
        // A search by a blob attribute finds the item only with the same type.
        let byLabel = [kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: blob] as [String: Any]
        #expect(attributes(byLabel.merging([kSecAttrService as String: service]) { _, n in n }).count == 1)
    }

    @Test func aNumberAccountComesBackAsANumber() {
        let service = TestKeychain.uniqueService()
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: 42,
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        let found = attributes(item)
        #expect(found.count == 1)
        #expect((found.first?[kSecAttrAccount as String] as? NSNumber)?.intValue == 42)
        #expect(!(found.first?[kSecAttrAccount as String] is String))
        var asText = item
        asText[kSecAttrAccount as String] = "42"
        #expect(SecItemCopyMatching(asText as CFDictionary, nil) == errSecItemNotFound)
    }

    @Test func internetPasswordBlobsKeepTheirType() {
        let server = Data("example.com".utf8)
        let path = "/login-\(UUID().uuidString)"
        let item: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrPath as String: path, kSecAttrSecurityDomain as String: Data([1, 2, 3]),
            kSecAttrAccount as String: Data("bob".utf8),
        ]
        #expect(
            SecItemAdd(item.merging([kSecValueData as String: Data("pw".utf8)]) { _, n in n } as CFDictionary, nil) == 0
        )
        let found = attributes(item)
        #expect(found.count == 1)
        #expect(found.first?[kSecAttrServer as String] as? Data == server)
        #expect(found.first?[kSecAttrPath as String] as? String == path)
        #expect(found.first?[kSecAttrSecurityDomain as String] as? Data == Data([1, 2, 3]))
        var asText = item
        asText[kSecAttrServer as String] = "example.com"
        #expect(SecItemCopyMatching(asText as CFDictionary, nil) == errSecItemNotFound)
        #expect(SecItemDelete(item as CFDictionary) == errSecSuccess)
    }
}
