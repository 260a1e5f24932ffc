import ClavisTestSupport
import Foundation
import Security
import Testing

/// Certificates stored in the keychain (`kSecClassCertificate`), written as they would be against Apple's framework.
///
/// Each test stores certificates no other test stores (a certificate is unique by issuer and serial number).
@Suite(.preparedKeychain) struct CertificateItemTests {
    /// Deletes certificate `name` from the keychain, whether or not an earlier run left it there.
    private func removeStored(_ certificate: SecCertificate) {
        SecItemDelete([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary)
    }

    /// The content of a DER `SEQUENCE`: what Apple stores as `kSecAttrIssuer` and `kSecAttrSubject`.
    private func content(_ sequence: Data) -> Data {
        let bytes = [UInt8](sequence)
        let lengthBytes = bytes[1] < 0x80 ? 0 : Int(bytes[1] & 0x7F)
        return Data(bytes[(2 + lengthBytes)...])
    }

    /// The application label (`klbl`) of the certificate's public key, as the key code computes it.
    private func keyHash(of certificate: SecCertificate) throws -> Data {
        let key = try #require(SecCertificateCopyKey(certificate))
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        return try #require(attributes[kSecAttrApplicationLabel as String] as? Data)
    }

    @Test func aCertificateAddedByReferenceCarriesTheAttributesAppleDerives() throws {
        let certificate = try testPKI().certificate("leaf")
        removeStored(certificate)
        var result: CFTypeRef?
        let added: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
            kSecReturnAttributes as String: true,
        ]
        #expect(SecItemAdd(added as CFDictionary, &result) == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecAttrCertificateType as String] as? Int == 3)
        #expect(attributes[kSecAttrCertificateEncoding as String] as? Int == 3)
        #expect(attributes[kSecAttrLabel as String] as? String == "leaf.clavis.test")
        #expect(
            attributes[kSecAttrSerialNumber as String] as? Data
                == SecCertificateCopySerialNumberData(certificate, nil) as Data?)
        let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(certificate) as Data?)
        let subject = try #require(SecCertificateCopyNormalizedSubjectSequence(certificate) as Data?)
        #expect(attributes[kSecAttrIssuer as String] as? Data == content(issuer))
        #expect(attributes[kSecAttrSubject as String] as? Data == content(subject))
        // The public key hash is the key's application label; openssl wrote the same SHA-1 as the subject key
        // identifier (subjectKeyIdentifier=hash), so the two were computed apart.
        let hash = try keyHash(of: certificate)
        #expect(attributes[kSecAttrPublicKeyHash as String] as? Data == hash)
        #expect(attributes[kSecAttrSubjectKeyID as String] as? Data == hash)
        removeStored(certificate)
    }

    @Test func aCertificateIsFoundByReferenceDataPublicKeyHashSubjectAndPersistentReference() throws {
        let certificate = try testPKI().certificate("client")
        let der = try testPKI().der("client")
        removeStored(certificate)
        var added: CFTypeRef?
        let add: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecValueData as String: der,
            kSecReturnPersistentRef as String: true,
        ]
        #expect(SecItemAdd(add as CFDictionary, &added) == errSecSuccess)
        let persistentReference = try #require(added as? Data)

        let byReference = copyMatching([
            kSecValuePersistentRef as String: persistentReference, kSecReturnRef as String: true,
        ])
        #expect(byReference.status == errSecSuccess)
        let found = try #require(byReference.result.map { $0 as! SecCertificate })
        #expect(found == certificate)
        #expect(CFGetTypeID(found) == SecCertificateGetTypeID())

        let byValue = copyMatching([
            kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
            kSecReturnData as String: true,
        ])
        #expect(byValue.status == errSecSuccess)
        #expect(byValue.result as? Data == der)

        let subject = try #require(SecCertificateCopyNormalizedSubjectSequence(certificate) as Data?)
        for (name, value) in [
            (kSecAttrPublicKeyHash, try keyHash(of: certificate)), (kSecAttrSubject, content(subject)),
        ] {
            let (status, result) = copyMatching([
                kSecClass as String: kSecClassCertificate, name as String: value,
                kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true,
            ])
            #expect(status == errSecSuccess, "\(name)")
            #expect((result as? [AnyObject])?.compactMap { $0 as? SecCertificate } == [certificate], "\(name)")
        }
        removeStored(certificate)
        #expect(copyMatching([kSecValuePersistentRef as String: persistentReference]).status == errSecItemNotFound)
    }

    @Test func addingACertificateTwiceIsDuplicateItemWhateverItsLabel() throws {
        let certificate = try testPKI().certificate("noname")
        removeStored(certificate)
        let add: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
        let relabelled = add.merging([kSecAttrLabel as String: "another label"]) { $1 }
        #expect(SecItemAdd(relabelled as CFDictionary, nil) == errSecDuplicateItem)
        let asData: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecValueData as String: try testPKI().der("noname"),
        ]
        #expect(SecItemAdd(asData as CFDictionary, nil) == errSecDuplicateItem)
        removeStored(certificate)
    }

    @Test func aCertificatesLabelIsUpdatedAndTheCertificateDeleted() throws {
        let certificate = try testPKI().certificate("other")
        removeStored(certificate)
        let query: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate]
        #expect(SecItemAdd(query as CFDictionary, nil) == errSecSuccess)
        let label = "other \(UUID().uuidString)"
        #expect(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: label] as CFDictionary) == errSecSuccess)
        let byLabel = copyMatching([
            kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: label, kSecReturnRef as String: true,
        ])
        #expect(byLabel.status == errSecSuccess)
        #expect(byLabel.result as? SecCertificate == certificate)
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
        #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
        #expect(copyMatching(query).status == errSecItemNotFound)
    }

    @Test func aCertificateWithoutOneDERCertificateIsParam() throws {
        let pem = try testPKI().pem("root")
        for value in [nil, Data("not a certificate".utf8), pem, try testPKI().der("root") + Data([0])] {
            var add: [String: Any] = [kSecClass as String: kSecClassCertificate]
            add[kSecValueData as String] = value
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecParam)
        }
        let key: [String: Any] = [
            kSecClass as String: kSecClassCertificate,
            kSecValueRef as String: try #require(
                SecCertificateCopyKey(try testPKI().certificate("root"))),
        ]
        #expect(SecItemAdd(key as CFDictionary, nil) == errSecParam)
    }
}
