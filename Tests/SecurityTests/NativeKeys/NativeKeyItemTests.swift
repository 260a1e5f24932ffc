import ClavisClient
import ClavisCore
import ClavisCrypto
import ClavisTestSupport
import Foundation
import Security
import Testing

/// The Foundation-free key layer of `ClavisClient` (`KeyItemFormat`, `StoredKey`, `KeySignature`, `KeychainClient`'s
/// key calls), checked against what `Security` makes of the same keys and against OpenSSL's command line.
@Suite(.preparedKeychain) struct NativeKeyItemTests {
    /// A tag no other test uses.
    private func uniqueTag(_ function: String = #function) -> [AttributeKey: AttributeValue] {
        [.applicationTag: .data(Data("native.\(function.prefix(40)).\(UUID().uuidString)".utf8))]
    }

    @Test func aKeyItemCarriesApplesDerivedAttributesAndTheCallersOwn() throws {
        let key = try KeySpecification.ellipticCurve(.p384).generate()
        let item = try KeyItemFormat.newItem(
            for: key, attributes: [.label: .string("mine"), .keySizeInBits: .number(1), .canSign: .bool(false)])
        #expect(item.itemClass == .key)
        #expect(item.attributes[.keyClass] == .number(1))
        #expect(item.attributes[.keyType] == .number(73))
        // The key's sizes are facts and replace the caller's; the caller's flags and label are kept.
        #expect(item.attributes[.keySizeInBits] == .number(384))
        #expect(item.attributes[.effectiveKeySize] == .number(384))
        #expect(item.attributes[.canSign] == .bool(false))
        #expect(item.attributes[.canDecrypt] == .bool(true))
        #expect(item.attributes[.canVerify] == .bool(false))
        #expect(item.attributes[.isPermanent] == .bool(true))
        #expect(item.attributes[.label] == .string("mine"))
        // The secret is the private external representation: 04 ‖ X ‖ Y ‖ K.
        #expect(item.secret.count == 1 + 3 * 48)

        // The application label is the one Security reports for the same key: SHA-1 of the public key.
        let secKey = try #require(
            SecKeyCreateWithData(
                item.secret.withUnsafeBytes { Data($0) } as CFData,
                [
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                ] as CFDictionary, nil))
        let attributes = try #require(SecKeyCopyAttributes(secKey) as? [String: Any])
        let label = try #require(attributes[kSecAttrApplicationLabel as String] as? Data)
        #expect(item.attributes[.applicationLabel] == .data(label))
        #expect(try KeyItemFormat.applicationLabel(of: key) == label)

        let publicItem = try KeyItemFormat.newItem(for: try key.publicKey())
        #expect(publicItem.attributes[.keyClass] == .number(0))
        #expect(publicItem.attributes[.applicationLabel] == .data(label))
        #expect(publicItem.attributes[.canVerify] == .bool(true))
        #expect(publicItem.attributes[.canSign] == .bool(false))
    }

    @Test func malformedKeyBytesAnswerParamWithoutTheBytes() throws {
        let garbage = SecureBytes([UInt8](repeating: 0x5A, count: 40))
        let given: [AttributeKey: AttributeValue] = [.keyClass: .number(1), .keyType: .number(73)]
        for attributes in [given, [.keyClass: .number(1)], [.keyClass: .number(1), .keyType: .number(99)], [:]] {
            #expect {
                _ = try KeyItemFormat.newItem(externalRepresentation: garbage, attributes: attributes)
            } throws: { error in
                guard let error = error as? ClavisCore.KeychainError else { return false }
                return error.code == .param && !"\(error)".contains("5a5a")
            }
        }
        // A symmetric key is stored as given, its size derived from its bytes.
        let symmetric = try KeyItemFormat.newItem(externalRepresentation: garbage, attributes: [.keyClass: .number(2)])
        #expect(symmetric.attributes[.keySizeInBits] == .number(320))
        let stored = Item(
            itemClass: .key, attributes: symmetric.attributes, secret: garbage,
            persistentReference: PersistentReference(bytes: []))
        #expect(KeyItemFormat.key(of: stored) == nil)
        #expect(StoredKey(stored) == nil)
    }

    @Test func aGeneratedPairIsStoredFoundBySecurityAndSigns() throws {
        let client = try KeychainClient()
        let tag = uniqueTag()
        let (privateKey, publicKey) = try client.generateKeyPair(
            .ellipticCurve(.p256), privateKeyAttributes: tag.merging([.label: .string("native pair")]) { $1 },
            publicKeyAttributes: tag)
        #expect(privateKey.isPrivate && !privateKey.isTokenHeld)
        #expect(try #require(publicKey).isPrivate == false)

        // Both items are in the keychain, as SecKeyCreateRandomKey with kSecAttrIsPermanent stores them.
        let found = try client.findKeys(ItemQuery(itemClass: .key, attributes: tag))
        #expect(found.count == 2)
        let foundPrivate = try #require(found.first { $0.isPrivate })
        let message = Array("signed natively".utf8)
        let signature = try client.sign(message, with: foundPrivate)
        try client.verify(signature, over: message, with: try #require(found.first { !$0.isPrivate }))

        // Security reads the same items and accepts the signature.
        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
            kSecAttrApplicationTag as String: Data(
                tag[.applicationTag].flatMap { value -> Data? in
                    if case .data(let data) = value { data } else { nil }
                }!), kSecReturnRef as String: true,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let secKey = result as! SecKey
        #expect(
            SecKeyVerifySignature(
                secKey, .ecdsaSignatureMessageX962SHA256, Data(message) as CFData, Data(signature) as CFData, nil))

        // A changed message fails with Apple's status; an RSA algorithm on an EC key is a parameter error.
        #expect(throws: ClavisCore.KeychainError.self) {
            try client.verify(signature, over: message + [0], with: foundPrivate)
        }
        do {
            try client.verify(signature, over: message + [0], with: foundPrivate)
        } catch {
            #expect(error.code == .verifyFailed)
        }
        do {
            _ = try client.sign(message, with: foundPrivate, algorithmName: "algid:sign:RSA:message-PKCS1v15:SHA256")
            Issue.record("an EC key signed with an RSA algorithm")
        } catch {
            #expect(error.code == .param)
            #expect("\(error)".contains("algorithm not supported by the key <SecKeyRef key type: ECPrivateKey"))
        }
    }

    @Test func aPairWhosePublicKeyCannotBeStoredLeavesNothing() throws {
        let client = try KeychainClient()
        let tag = uniqueTag()
        do {
            _ = try client.generateKeyPair(
                .rsa(bits: 1024), privateKeyAttributes: tag,
                publicKeyAttributes: tag.merging([.accessGroup: .string(TestKeychain.foreignGroup)]) { $1 })
            Issue.record("a public key was stored in a group the caller does not hold")
        } catch {
            #expect(error.code == .missingEntitlement)
        }
        #expect(try client.findKeys(ItemQuery(itemClass: .key, attributes: tag)).isEmpty)
    }

    @Test func keySizesOutsideApplesAnswerParam() throws {
        for (type, bits) in [(KeyType.ellipticCurve, 255), (.rsa, 1000), (.rsa, 8192)] {
            #expect(throws: ClavisCore.KeychainError.self) { _ = try KeySpecification(type: type, bits: bits) }
        }
        #expect(try KeySpecification(type: .rsa, bits: 2048) == .rsa(bits: 2048))
        #expect(KeyType(code: 43) == .ellipticCurve)
        #expect(KeyType(code: 44) == nil)
    }

    @Test func aTokenKeySignsThroughTheServiceAndIsFoundAgain() throws {
        let client = try KeychainClient()
        let tag = uniqueTag()
        let key = try client.generateTokenKey(attributes: tag)
        #expect(key.isTokenHeld && key.isPrivate)
        #expect(key.item.attributes[.isExtractable] == .bool(false))
        let found = try #require(try client.findKeys(ItemQuery(itemClass: .key, attributes: tag)).first)
        #expect(found.isTokenHeld)
        let message = Array("signed by the token".utf8)
        let signature = try client.sign(message, with: found)
        try client.verify(signature, over: message, with: found)
        // A synchronizable token key is refused before anything is made.
        #expect(throws: ClavisCore.KeychainError.self) {
            _ = try client.generateTokenKey(attributes: tag.merging([.synchronizable: .bool(true)]) { $1 })
        }
    }

    @Test func aPublicKeyPEMIsWhatOpenSSLReads() throws {
        for specification in [KeySpecification.ellipticCurve(.p521), .rsa(bits: 1024)] {
            let key = try specification.generate()
            let pem = try PublicKeyInfo.pem(of: key)
            #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n") && pem.hasSuffix("-----END PUBLIC KEY-----\n"))
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try Data(pem.utf8).write(to: URL(fileURLWithPath: folder + "/key.pem"))
            let output = try runOpenSSL(
                ["pkey", "-pubin", "-in", "key.pem", "-outform", "DER", "-out", "key.der"], in: folder)
            #expect(output.status == 0)
            let der = try Data(contentsOf: URL(fileURLWithPath: folder + "/key.der"))
            #expect(Array(der) == (try PublicKeyInfo.der(of: key)))
            let parsed = try AsymmetricKey.standardDER(SecureBytes(der), isPrivate: false)
            #expect(try parsed.publicRepresentation() == key.publicRepresentation())
        }
    }
}
