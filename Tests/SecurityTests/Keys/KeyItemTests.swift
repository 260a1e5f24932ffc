import ClavisTestSupport
import Foundation
import Security
import Testing

/// Keys stored in the keychain (`kSecClassKey`), written as they would be against Apple's framework.
@Suite(.preparedKeychain) struct KeyItemTests {
    private let message = Data("a message to sign".utf8)

    /// A tag no other test uses.
    private func uniqueTag(_ function: String = #function) -> Data {
        Data("com.example.keys.\(function.prefix(40)).\(UUID().uuidString)".utf8)
    }

    /// Finds the key item(s) matching `query` with `returns` added.
    private func find(_ query: [String: Any], _ returns: [String: Any]) -> (OSStatus, AnyObject?) {
        copyMatching(query.merging([kSecClass as String: kSecClassKey]) { _, new in new }.merging(returns) { $1 })
    }

    /// The application label (`klbl`) `SecKeyCopyAttributes` reports.
    private func applicationLabel(_ key: SecKey) throws -> Data {
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        return try #require(attributes[kSecAttrApplicationLabel as String] as? Data)
    }

    /// Signs with `found` and verifies with `original`'s public key.
    private func expectSignsForPublicKey(of original: SecKey, found: SecKey, _ algorithm: SecKeyAlgorithm) throws {
        let (signature, error) = sign(found, algorithm, message)
        #expect(error == nil)
        let (valid, verifyError) = verify(try publicKey(of: original), algorithm, message, try #require(signature))
        #expect(valid && verifyError == nil)
    }

    @Test func aPermanentP256KeyIsFoundByTagAndByApplicationLabelAndSigns() throws {
        let tag = uniqueTag()
        let key = try makePrivateKey(
            type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256,
            extra: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag])
        let generated = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(generated[kSecAttrIsPermanent as String] as? Bool == true)

        let (status, result) = find(
            [kSecAttrApplicationTag as String: tag, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate],
            [kSecReturnRef as String: true])
        #expect(status == errSecSuccess)
        let byTag = try #require(result.map { $0 as! SecKey })
        #expect(byTag == key)
        try expectSignsForPublicKey(of: key, found: byTag, .ecdsaSignatureMessageX962SHA256)
        let stored = try #require(SecKeyCopyAttributes(byTag) as? [String: Any])
        #expect(stored[kSecAttrIsPermanent as String] as? Bool == true)
        #expect(stored[kSecAttrApplicationTag as String] as? Data == tag)

        let (labelStatus, labelResult) = find(
            [
                kSecAttrApplicationLabel as String: try applicationLabel(key),
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ],
            [kSecReturnRef as String: true])
        #expect(labelStatus == errSecSuccess)
        let byLabel = try #require(labelResult.map { $0 as! SecKey })
        try expectSignsForPublicKey(of: key, found: byLabel, .ecdsaSignatureMessageX962SHA512)
        // A top-level kSecAttrIsPermanent stores the pair, as Apple's header says.
        let (publicStatus, publicResult) = find(
            [kSecAttrApplicationTag as String: tag, kSecAttrKeyClass as String: kSecAttrKeyClassPublic],
            [kSecReturnRef as String: true])
        #expect(publicStatus == errSecSuccess)
        let storedPublic = try #require(publicResult.map { $0 as! SecKey })
        #expect(
            SecKeyCopyExternalRepresentation(storedPublic, nil) as Data?
                == SecKeyCopyExternalRepresentation(try publicKey(of: key), nil) as Data?)
    }

    @Test func aPermanentRSAKeyAndItsPublicKeyAreStoredWhenTheirAttributesSaySo() throws {
        let tag = uniqueTag()
        let key = try makePrivateKey(
            type: kSecAttrKeyTypeRSA, bits: 2048,
            extra: [
                kSecAttrApplicationTag as String: tag, kSecAttrLabel as String: "signing key",
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true],
                kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true],
            ])
        let (status, result) = find(
            [kSecAttrApplicationTag as String: tag, kSecMatchLimit as String: kSecMatchLimitAll],
            [kSecReturnAttributes as String: true, kSecReturnRef as String: true])
        #expect(status == errSecSuccess)
        let items = try #require(result as? [[String: Any]])
        #expect(items.count == 2)
        let privateItem = try #require(items.first { ($0[kSecAttrKeyClass as String] as? Int) == 1 })
        let publicItem = try #require(items.first { ($0[kSecAttrKeyClass as String] as? Int) == 0 })
        for item in [privateItem, publicItem] {
            #expect(item[kSecAttrKeyType as String] as? Int == 42)
            #expect(item[kSecAttrKeySizeInBits as String] as? Int == 2048)
            #expect(item[kSecAttrLabel as String] as? String == "signing key")
            #expect(
                item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                    as String)
            #expect(item[kSecAttrApplicationLabel as String] as? Data == (try applicationLabel(key)))
        }
        #expect(privateItem[kSecAttrCanSign as String] as? Bool == true)
        #expect(publicItem[kSecAttrCanVerify as String] as? Bool == true)
        let found = try #require(privateItem[kSecValueRef as String].map { $0 as! SecKey })
        try expectSignsForPublicKey(of: key, found: found, .rsaSignatureMessagePSSSHA256)
        let foundPublic = try #require(publicItem[kSecValueRef as String].map { $0 as! SecKey })
        #expect(foundPublic == (try publicKey(of: key)))
    }

    @Test func aPermanentKeyKeepsItsAccessGroupAccessibilityAndAccessControl() throws {
        let tag = uniqueTag()
        var error: Unmanaged<CFError>?
        let access = try #require(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, &error)
        )
        let key = try makePrivateKey(
            type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256,
            extra: [
                kSecAttrAccessGroup as String: TestKeychain.sharedGroup,
                kSecPrivateKeyAttrs as String: [
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                    kSecAttrAccessControl as String: access,
                ],
            ])
        let (status, result) = find(
            [kSecAttrApplicationTag as String: tag],
            [kSecReturnAttributes as String: true, kSecReturnRef as String: true])
        #expect(status == errSecSuccess)
        let item = try #require(result as? [String: Any])
        #expect(item[kSecAttrAccessGroup as String] as? String == TestKeychain.sharedGroup)
        #expect(
            item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
        #expect(item[kSecAttrAccessControl as String] is SecAccessControl)
        #expect(item[kSecValueRef as String].map { $0 as! SecKey } == key)

        // In a group the caller does not hold, nothing is made or stored, with SecItemAdd's status.
        let foreign: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrIsPermanent as String: true, kSecAttrAccessGroup as String: TestKeychain.foreignGroup,
            kSecAttrApplicationTag as String: tag,
        ]
        #expect(SecKeyCreateRandomKey(foreign as CFDictionary, &error) == nil)
        #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecMissingEntitlement))
        let (all, references) = find(
            [kSecAttrApplicationTag as String: tag, kSecMatchLimit as String: kSecMatchLimitAll],
            [kSecReturnPersistentRef as String: true])
        #expect(all == errSecSuccess)
        #expect((references as? [Data])?.count == 1)
    }

    @Test func aKeyAddedByReferenceCarriesTheAttributesDerivedFromIt() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let tag = uniqueTag()
        var added: CFTypeRef?
        let add: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrApplicationTag as String: tag,
            kSecAttrLabel as String: "added", kSecReturnAttributes as String: true,
        ]
        #expect(SecItemAdd(add as CFDictionary, &added) == errSecSuccess)
        let attributes = try #require(added as? [String: Any])
        #expect(attributes[kSecAttrKeyClass as String] as? Int == 1)
        #expect(attributes[kSecAttrKeyType as String] as? Int == 73)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 384)
        #expect(attributes[kSecAttrEffectiveKeySize as String] as? Int == 384)
        #expect(attributes[kSecAttrApplicationLabel as String] as? Data == (try applicationLabel(key)))
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag)
        #expect(attributes[kSecAttrIsPermanent as String] as? Bool == true)
        #expect(attributes[kSecAttrCanSign as String] as? Bool == true)
        #expect(attributes[kSecValueData as String] == nil)

        let (status, data) = find([kSecAttrApplicationTag as String: tag], [kSecReturnData as String: true])
        #expect(status == errSecSuccess)
        #expect(data as? Data == (try externalRepresentation(key)))
        // A query may name the key itself.
        let (byReference, _) = find([kSecValueRef as String: key], [:])
        #expect(byReference == errSecSuccess)
    }

    @Test func keysAddedAsExternalRepresentationsAreFoundAndUsable() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let tag = uniqueTag()
        for (keyClass, data) in [
            (kSecAttrKeyClassPrivate, try externalRepresentation(key)),
            (kSecAttrKeyClassPublic, try externalRepresentation(try publicKey(of: key))),
        ] {
            let add: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecValueData as String: data,
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: keyClass,
                kSecAttrApplicationTag as String: tag,
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        }
        let (status, result) = find(
            [kSecAttrApplicationTag as String: tag, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate],
            [kSecReturnRef as String: true])
        #expect(status == errSecSuccess)
        try expectSignsForPublicKey(
            of: key, found: try #require(result.map { $0 as! SecKey }), .ecdsaSignatureMessageX962SHA256)
        let (publicStatus, publicResult) = find(
            [kSecAttrApplicationTag as String: tag, kSecAttrKeyClass as String: kSecAttrKeyClassPublic],
            [kSecReturnAttributes as String: true])
        #expect(publicStatus == errSecSuccess)
        let attributes = try #require(publicResult as? [String: Any])
        #expect(attributes[kSecAttrApplicationLabel as String] as? Data == (try applicationLabel(key)))
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
    }

    @Test func symmetricKeyBytesAreStoredAsGivenAndHaveNoReference() throws {
        let tag = uniqueTag()
        let bytes = Data((0..<32).map { UInt8($0) })
        let add: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecValueData as String: bytes,
            kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric, kSecAttrApplicationTag as String: tag,
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        let (status, result) = find(
            [kSecAttrApplicationTag as String: tag],
            [kSecReturnData as String: true, kSecReturnAttributes as String: true])
        #expect(status == errSecSuccess)
        let item = try #require(result as? [String: Any])
        #expect(item[kSecValueData as String] as? Data == bytes)
        #expect(item[kSecAttrKeyClass as String] as? Int == 2)
        #expect(item[kSecAttrKeySizeInBits as String] as? Int == 256)
        // Clavis has no symmetric SecKey: a reference asked for alone comes back empty, as a password's does.
        let (referenceStatus, reference) = find(
            [kSecAttrApplicationTag as String: tag], [kSecReturnRef as String: true])
        #expect(referenceStatus == errSecSuccess)
        #expect(reference == nil)
    }

    @Test func theSameKeyUnderTheSameTagIsDuplicateItem() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let tag = uniqueTag()
        let add: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrApplicationTag as String: tag,
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
        // A label is not part of a key's primary key; a tag is.
        var relabelled = add
        relabelled[kSecAttrLabel as String] = "another label"
        #expect(SecItemAdd(relabelled as CFDictionary, nil) == errSecDuplicateItem)
        var retagged = add
        retagged[kSecAttrApplicationTag as String] = uniqueTag()
        #expect(SecItemAdd(retagged as CFDictionary, nil) == errSecSuccess)
        let publicAdd: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecValueRef as String: try publicKey(of: key),
            kSecAttrApplicationTag as String: tag,
        ]
        #expect(SecItemAdd(publicAdd as CFDictionary, nil) == errSecSuccess)
    }

    @Test func everyReturnCombinationIsShapedAsApplesAndAPersistentReferenceFindsTheKey() throws {
        let tag = uniqueTag()
        let key = try makePrivateKey(
            type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256,
            extra: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag])
        let (status, result) = find(
            [kSecAttrApplicationTag as String: tag],
            [
                kSecReturnRef as String: true, kSecReturnData as String: true, kSecReturnAttributes as String: true,
                kSecReturnPersistentRef as String: true,
            ])
        #expect(status == errSecSuccess)
        let item = try #require(result as? [String: Any])
        #expect(item[kSecValueRef as String].map { $0 as! SecKey } == key)
        #expect(item[kSecValueData as String] as? Data == (try externalRepresentation(key)))
        #expect(item[kSecClass as String] as? String == kSecClassKey as String)
        let reference = try #require(item[kSecValuePersistentRef as String] as? Data)

        let (referenceStatus, found) = copyMatching([
            kSecValuePersistentRef as String: reference, kSecReturnRef as String: true,
        ])
        #expect(referenceStatus == errSecSuccess)
        #expect(found.map { $0 as! SecKey } == key)
        let (allStatus, all) = find(
            [kSecAttrApplicationTag as String: tag, kSecMatchLimit as String: kSecMatchLimitAll],
            [kSecReturnRef as String: true])
        #expect(allStatus == errSecSuccess)
        // The pair: a top-level kSecAttrIsPermanent stores the public key too.
        let pair = try #require(all as? [SecKey])
        #expect(pair.count == 2 && pair.contains(key))
        let (persistentStatus, persistent) = find(
            [kSecAttrApplicationTag as String: tag], [kSecReturnPersistentRef as String: true])
        #expect(persistentStatus == errSecSuccess)
        #expect(persistent as? Data == reference)
    }

    @Test func aStoredKeysLabelIsUpdatedAndTheKeyDeleted() throws {
        let tag = uniqueTag()
        _ = try makePrivateKey(
            type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256,
            extra: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                kSecAttrLabel as String: "before",
            ])
        let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
        #expect(
            SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "after"] as CFDictionary) == errSecSuccess)
        let (status, result) = find(query, [kSecReturnAttributes as String: true])
        #expect(status == errSecSuccess)
        #expect((result as? [String: Any])?[kSecAttrLabel as String] as? String == "after")
        // What is derived from the key's bytes, and the bytes, cannot be changed: the item would name another key.
        for change in [
            [kSecValueData as String: Data(repeating: 4, count: 65)],
            [kSecAttrApplicationLabel as String: Data(repeating: 1, count: 20)],
            [kSecAttrKeySizeInBits as String: 384],
        ] as [[String: Any]] {
            #expect(SecItemUpdate(query as CFDictionary, change as CFDictionary) == errSecParam)
        }
        #expect(find(query.merging([kSecAttrLabel as String: "before"]) { $1 }, [:]).0 == errSecItemNotFound)
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
        #expect(find(query, [:]).0 == errSecItemNotFound)
        #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
    }

    @Test func wrongKeyClassesTypesAndValuesAreRefused() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let data = try externalRepresentation(key)
        let base: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecValueData as String: data,
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrApplicationTag as String: uniqueTag(),
        ]
        for keyClass: Any in ["private", "7", 9, -1] {
            let add = base.merging([kSecAttrKeyClass as String: keyClass]) { $1 }
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecParam, "class \(keyClass)")
        }
        // No class, the wrong type for the bytes, bytes that are no key, a value that is no key.
        #expect(SecItemAdd(base as CFDictionary, nil) == errSecParam)
        let asPrivate = base.merging([kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]) { $1 }
        #expect(
            SecItemAdd(asPrivate.merging([kSecAttrKeyType as String: kSecAttrKeyTypeRSA]) { $1 } as CFDictionary, nil)
                == errSecParam)
        #expect(
            SecItemAdd(asPrivate.merging([kSecValueData as String: Data(data.prefix(40))]) { $1 } as CFDictionary, nil)
                == errSecParam)
        var notAKey = asPrivate
        notAKey.removeValue(forKey: kSecValueData as String)
        notAKey[kSecValueRef as String] = "not a key"
        #expect(SecItemAdd(notAKey as CFDictionary, nil) == errSecParam)
        notAKey.removeValue(forKey: kSecValueRef as String)
        #expect(SecItemAdd(notAKey as CFDictionary, nil) == errSecParam)
        // A key is no password's value, and a password class has no key attributes.
        let password: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TestKeychain.uniqueService(),
            kSecValueRef as String: key,
        ]
        #expect(SecItemAdd(password as CFDictionary, nil) == errSecParam)
        #expect(find([kSecAttrKeyClass as String: "bogus"], [:]).0 == errSecParam)
        // Keys held by a token are made by SecKeyCreateRandomKey only (EnclaveKeyTests).
        let tokenKey: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ]
        #expect(SecItemAdd(tokenKey as CFDictionary, nil) == errSecParam)
    }

    @Test func aStoredPrivateKeyAppearsInNoKeychainFileOrLogInClear() throws {
        let home = try makeTemporaryFolder("clavis-key-items") + "/home"
        let keys = try withKeychainHome(home) {
            try [(kSecAttrKeyTypeECSECPrimeRandom, 256), (kSecAttrKeyTypeRSA, 2048)].map { type, bits in
                let key = try makePrivateKey(
                    type: type, bits: bits,
                    extra: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: uniqueTag()])
                #expect(find([kSecValueRef as String: key], [:]).0 == errSecSuccess)
                return key
            }
        }
        let files = try ["keychain.db", "keychain.db-wal"].compactMap { name in
            FileManager.default.fileExists(atPath: home + "/" + name)
                ? try Data(contentsOf: URL(fileURLWithPath: home + "/" + name)) : nil
        }
        #expect(files.reduce(0) { $0 + $1.count } > 0)
        // Through clavisd (whose state folder is the keychain's), the access log records the key items' calls.
        let log = try? Data(contentsOf: URL(fileURLWithPath: home + "/access.log"))
        #expect((log != nil) == (TestKeychain.daemon != nil))
        if let log {
            #expect(String(decoding: log, as: UTF8.self).contains("\"keys\""))
        }
        for key in keys {
            let representation = try externalRepresentation(key)
            // The private scalar of an EC key (after 04 ‖ X ‖ Y), or any 32 bytes from the middle of an RSA key.
            let secretPart =
                representation.count == 97 ? representation.suffix(32) : representation.dropFirst(600).prefix(32)
            let encodings = [
                Data(secretPart), Data(secretPart.hexString.utf8), Data(secretPart.base64EncodedString().utf8),
            ]
            for file in files + [log ?? Data()] {
                #expect(file.range(of: representation) == nil)
                for encoding in encodings {
                    #expect(file.range(of: encoding) == nil, "private key bytes found in clear")
                }
            }
        }
    }
}
