import ClavisTestSupport
import Foundation
import Security
import Testing

/// Identities in the keychain (`kSecClassIdentity`): a stored certificate paired with the stored private key of its
/// public key, written as against Apple's framework. Each test imports archives of its own leaves.
@Suite(.preparedKeychain) struct IdentityItemTests {
    private let message = Data("a message the stored identity signs".utf8)

    /// A label no other test uses.
    private func uniqueLabel(_ function: String = #function) -> String {
        "identity.\(function.prefix(40)).\(UUID().uuidString)"
    }

    /// The certificate and private key of `identity`.
    private func parts(of identity: SecIdentity) throws -> (SecCertificate, SecKey) {
        var certificate: SecCertificate?
        var key: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        #expect(SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess)
        return (try #require(certificate), try #require(key))
    }

    /// A `kSecClassIdentity` search by label with `extra`.
    private func findIdentity(label: String, _ extra: [String: Any]) -> (status: OSStatus, result: AnyObject?) {
        copyMatching(
            [kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: label].merging(extra) { $1 })
    }

    @Test func anImportedIdentityAddedToTheKeychainIsFoundAndItsKeySigns() throws {
        let identity = try importedIdentity(try testArchives().archive(.ec))
        let (certificate, key) = try parts(of: identity)
        let label = uniqueLabel()
        let add: [String: Any] = [kSecValueRef as String: identity, kSecAttrLabel as String: label]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)

        let (status, result) = findIdentity(label: label, [kSecReturnRef as String: true])
        #expect(status == errSecSuccess)
        let found = try #require(result.map { $0 as! SecIdentity })
        #expect(CFGetTypeID(found) == SecIdentityGetTypeID())
        #expect(found == identity)
        let (foundCertificate, foundKey) = try parts(of: found)
        #expect(foundCertificate == certificate)
        let (signature, signError) = sign(foundKey, .ecdsaSignatureMessageX962SHA256, message)
        #expect(signError == nil)
        let certificateKey = try #require(SecCertificateCopyKey(certificate))
        #expect(verify(certificateKey, .ecdsaSignatureMessageX962SHA256, message, try #require(signature)).0)
        #expect(foundKey == key)

        // Its attributes are the key's with the certificate's over them; the public key hash pairs the two.
        let (_, attributesResult) = findIdentity(label: label, [kSecReturnAttributes as String: true])
        let attributes = try #require(attributesResult as? [String: Any])
        let hash = try #require(attributes[kSecAttrPublicKeyHash as String] as? Data)
        #expect(attributes[kSecAttrApplicationLabel as String] as? Data == hash)
        #expect(attributes[kSecAttrKeyClass as String] as? Int == 1)
        #expect(attributes[kSecAttrCertificateType as String] as? Int == 3)
        #expect(attributes[kSecAttrLabel as String] as? String == label)

        // The certificate is stored with its derived attributes and found by the persistent reference returned.
        let (certificateStatus, certificateResult) = copyMatching([
            kSecClass as String: kSecClassCertificate, kSecAttrPublicKeyHash as String: hash,
            kSecReturnPersistentRef as String: true,
        ])
        #expect(certificateStatus == errSecSuccess)
        let persistentReference = try #require(certificateResult as? Data)
        let byReference = copyMatching([
            kSecValuePersistentRef as String: persistentReference, kSecReturnRef as String: true,
        ])
        #expect(byReference.result as? SecCertificate == certificate)
        // The key is stored as a private key item under the same hash.
        let (keyStatus, _) = copyMatching([
            kSecClass as String: kSecClassKey, kSecAttrApplicationLabel as String: hash,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ])
        #expect(keyStatus == errSecSuccess)
        #expect(
            SecItemDelete([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: label] as CFDictionary)
                == errSecSuccess)
    }

    @Test func aCertificateWithoutItsKeyIsNoIdentityUntilTheKeyIsAdded() throws {
        let identity = try importedIdentity(try testArchives().archive(.rsa))
        let (certificate, key) = try parts(of: identity)
        let label = uniqueLabel()
        let addCertificate: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
            kSecAttrLabel as String: label,
        ]
        #expect(SecItemAdd(addCertificate as CFDictionary, nil) == errSecSuccess)
        #expect(findIdentity(label: label, [kSecReturnRef as String: true]).status == errSecItemNotFound)
        var made: SecIdentity?
        #expect(SecIdentityCreateWithCertificate(nil, certificate, &made) == errSecItemNotFound)
        #expect(made == nil)

        let addKey: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueRef as String: key]
        #expect(SecItemAdd(addKey as CFDictionary, nil) == errSecSuccess)
        let (status, result) = findIdentity(label: label, [kSecReturnRef as String: true])
        #expect(status == errSecSuccess)
        #expect(result as? SecIdentity == identity)
        #expect(SecIdentityCreateWithCertificate(nil, certificate, &made) == errSecSuccess)
        #expect(made == identity)
        #expect(
            SecItemDelete([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: label] as CFDictionary)
                == errSecSuccess)
    }

    @Test func deletingAnIdentityDeletesItsCertificateAndItsKey() throws {
        let identity = try importedIdentity(try testArchives().archive(.ec))
        let (certificate, key) = try parts(of: identity)
        let label = uniqueLabel()
        #expect(
            SecItemAdd([kSecValueRef as String: identity, kSecAttrLabel as String: label] as CFDictionary, nil)
                == errSecSuccess)
        let query: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: label]
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
        #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
        let certificateQuery: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
        ]
        #expect(copyMatching(certificateQuery).status == errSecItemNotFound)
        #expect(
            copyMatching([kSecClass as String: kSecClassKey, kSecValueRef as String: key]).status == errSecItemNotFound)
    }

    @Test func addingAnIdentityTwiceIsDuplicateItem() throws {
        let identity = try importedIdentity(try testArchives().archive(.ec))
        let label = uniqueLabel()
        let add: [String: Any] = [
            kSecClass as String: kSecClassIdentity, kSecValueRef as String: identity, kSecAttrLabel as String: label,
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
        #expect(
            SecItemDelete([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: label] as CFDictionary)
                == errSecSuccess)
    }

    @Test func aSearchReturnsOneIdentityOrEveryOneAsTheLimitSays() throws {
        let label = uniqueLabel()
        var identities: [SecIdentity] = []
        for key in [TestArchives.LeafKey.rsa, .ec] {
            let identity = try importedIdentity(try testArchives().archive(key))
            identities.append(identity)
            #expect(
                SecItemAdd([kSecValueRef as String: identity, kSecAttrLabel as String: label] as CFDictionary, nil)
                    == errSecSuccess)
        }
        let (oneStatus, one) = findIdentity(label: label, [kSecReturnRef as String: true])
        #expect(oneStatus == errSecSuccess)
        #expect(identities.contains(try #require(one as? SecIdentity)))
        let (allStatus, all) = findIdentity(
            label: label, [kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll])
        #expect(allStatus == errSecSuccess)
        let found = try #require(all as? [AnyObject]).compactMap { $0 as? SecIdentity }
        #expect(found.count == 2)
        #expect(
            Set(found.map { SecCertificateCopyData(try! parts(of: $0).0) as Data })
                == Set(try identities.map { SecCertificateCopyData(try parts(of: $0).0) as Data }))
        let (referencesStatus, references) = findIdentity(
            label: label, [kSecReturnPersistentRef as String: true, kSecMatchLimit as String: 5])
        #expect(referencesStatus == errSecSuccess)
        let persistentReferences = try #require(references as? [Data])
        #expect(persistentReferences.count == 2)
        // A persistent reference returned for an identity names it in a later identity query.
        for reference in persistentReferences {
            let (status, result) = copyMatching([
                kSecClass as String: kSecClassIdentity, kSecValuePersistentRef as String: reference,
                kSecReturnRef as String: true, kSecReturnData as String: true,
            ])
            #expect(status == errSecSuccess)
            let entry = try #require(result as? [String: Any])
            let identity = try #require(entry[kSecValueRef as String].map { $0 as! SecIdentity })
            #expect(identities.contains(identity))
            #expect(
                entry[kSecValueData as String] as? Data == SecCertificateCopyData(try parts(of: identity).0) as Data)
        }
        #expect(
            SecItemDelete([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: label] as CFDictionary)
                == errSecSuccess)
        #expect(findIdentity(label: label, [:]).status == errSecItemNotFound)
    }
}
