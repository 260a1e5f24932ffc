import ClavisClient
import ClavisCore
import ClavisCrypto
import ClavisStore
import ClavisTestSupport
import Foundation
import LocalAuthentication
import Security
import Testing

/// Keys held by the keychain service (`kSecAttrTokenIDSecureEnclave`), written as they would be against Apple's
/// framework: the private key is made, kept and used by the service, and no call hands it out.
@Suite(.serialized, .preparedKeychain) struct EnclaveKeyTests {
    private let message = Data("a DPoP proof to sign".utf8)

    /// A tag no other test uses.
    private func uniqueTag(_ function: String = #function) -> Data {
        Data("com.example.enclave.\(function.prefix(40)).\(UUID().uuidString)".utf8)
    }

    /// The parameters of a permanent P-256 key held by the Secure Enclave token, as apps write them.
    private func enclaveParameters(tag: Data, access: SecAccessControl? = nil) -> [String: Any] {
        var privateAttributes: [String: Any] = [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
        ]
        if let access { privateAttributes[kSecAttrAccessControl as String] = access }
        return [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecPrivateKeyAttrs as String: privateAttributes,
        ]
    }

    /// Makes a key held by the token, failing the test when it is refused.
    private func makeEnclaveKey(tag: Data, access: SecAccessControl? = nil) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(enclaveParameters(tag: tag, access: access) as CFDictionary, &error)
        if let error { Issue.record("SecKeyCreateRandomKey: \(error.takeRetainedValue())") }
        return try #require(key)
    }

    /// The status and error of `SecKeyCreateRandomKey` with `parameters`.
    private func creationError(_ parameters: [String: Any]) -> (SecKey?, Int?) {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        return (key, code(error?.takeRetainedValue()))
    }

    @Test func aTokenKeySignsAndItsPublicKeyPythonCryptographyAndOpenSSLVerify() throws {
        let key = try makeEnclaveKey(tag: uniqueTag())
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
        // No TPM holds this keychain: Clavis's own attribute says the service keeps the key in software.
        #expect(attributes[kClavisAttrTokenHolder as String] as? String == kClavisTokenHolderSoftware as String)
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
        #expect(attributes[kSecAttrIsPermanent as String] as? Bool == true)
        #expect(attributes[kSecValueData as String] == nil)
        #expect(SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(key, .verify, .ecdsaSignatureMessageX962SHA256))

        let publicKey = try publicKey(of: key)
        let point = try externalRepresentation(publicKey)
        #expect(point.count == 65 && point.first == 4)
        let (signature, error) = sign(key, .ecdsaSignatureMessageX962SHA256, message)
        #expect(error == nil)
        let signed = try #require(signature)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, message, signed).0)
        #expect(!verify(publicKey, .ecdsaSignatureMessageX962SHA256, Data("another".utf8), signed).0)
        #expect(
            try IndependentCrypto.run(
                "verify-ec", ["SHA256", "-", point.hexString, message.hexString, signed.hexString])
                == ["valid"])
        // The r ‖ s form and a digest signed as given.
        let raw = try #require(sign(key, .ecdsaSignatureMessageRFC4754SHA256, message).0)
        #expect(raw.count == 64)
        #expect(verify(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message, raw).0)
        let digest = Data(SHA256.hash([UInt8](message)))
        let digestSignature = try #require(sign(key, .ecdsaSignatureDigestX962SHA256, digest).0)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, message, digestSignature).0)
        #expect(sign(key, .ecdsaSignatureDigestX962SHA256, Data(count: 20)).0 == nil)
        #expect(sign(key, .rsaSignatureMessagePKCS1v15SHA256, message).0 == nil)

        // openssl dgst checks the signature with the public key as a PEM file.
        let folder = try makeTemporaryFolder("clavis-enclave")
        let spki =
            Data([
                0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86,
                0x48,
                0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
            ]) + point
        try spki.write(to: URL(fileURLWithPath: folder + "/public.der"))
        try message.write(to: URL(fileURLWithPath: folder + "/message"))
        try signed.write(to: URL(fileURLWithPath: folder + "/signature"))
        let verified = try runOpenSSL(
            [
                "dgst", "-sha256", "-verify", "public.der", "-keyform", "DER", "-signature", "signature", "message",
            ], in: folder)
        #expect(verified.standardOutput.contains("Verified OK"))
    }

    @Test func thePrivateKeyCannotBeExportedByAnyCall() throws {
        let tag = uniqueTag()
        let key = try makeEnclaveKey(tag: tag)
        var error: Unmanaged<CFError>?
        #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
        #expect(code(error?.takeRetainedValue()) == Int(errSecUnimplemented))

        // Found again by its tag, the key is a reference that signs for the same public key.
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ]
        let (status, found) = copyMatching(query.merging([kSecReturnRef as String: true]) { $1 })
        #expect(status == errSecSuccess)
        let reference = try #require(found as! SecKey?)
        #expect(reference == key)
        var foundError: Unmanaged<CFError>?
        #expect(SecKeyCopyExternalRepresentation(reference, &foundError) == nil)
        #expect(code(foundError?.takeRetainedValue()) == Int(errSecUnimplemented))
        let signature = try #require(sign(reference, .ecdsaSignatureMessageX962SHA256, message).0)
        #expect(verify(try publicKey(of: key), .ecdsaSignatureMessageX962SHA256, message, signature).0)
        let attributes = try #require(copyMatching(query.merging([kSecReturnAttributes as String: true]) { $1 }).1)
        #expect((attributes as? [String: Any])?[kSecAttrTokenID as String] as? String == "com.apple.setoken")
        #expect((attributes as? [String: Any])?[kClavisAttrTokenHolder as String] as? String == "software")

        // kSecReturnData, adding it again, and moving it off the token are refused.
        #expect(copyMatching(query.merging([kSecReturnData as String: true]) { $1 }).0 == errSecParam)
        #expect(
            copyMatching(query.merging([kSecReturnData as String: true, kSecReturnRef as String: true]) { $1 }).0
                == errSecParam)
        let add: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueRef as String: key]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
        #expect(
            SecItemUpdate(query as CFDictionary, [kSecAttrTokenID as String: "other"] as CFDictionary) == errSecParam)
        #expect(
            SecItemUpdate(query as CFDictionary, [kClavisAttrTokenHolder as String: "tpm"] as CFDictionary)
                == errSecParam)
        let injected: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrApplicationTag as String: uniqueTag(),
        ]
        #expect(SecItemAdd(injected as CFDictionary, nil) == errSecParam)
        #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
        #expect(
            sign(key, .ecdsaSignatureMessageX962SHA256, message).1.map { CFErrorGetCode($0) }
                == Int(errSecItemNotFound))
    }

    @Test func aTokenKeyDecryptsECIESAndAgreesOnASharedSecret() throws {
        let key = try makeEnclaveKey(tag: uniqueTag())
        let publicKey = try publicKey(of: key)
        let point = try externalRepresentation(publicKey)
        let algorithm = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM
        let sealed = try IndependentCrypto.run(
            "ecies-seal", ["SHA256", "variable", point.hexString, message.hexString])
        let (opened, error) = decrypt(key, algorithm, Data(hex: sealed[0]))
        #expect(error == nil)
        #expect(opened == message)
        let ours = try #require(encrypt(publicKey, algorithm, message).0)
        #expect(decrypt(key, algorithm, ours).0 == message)
        var tampered = ours
        tampered[tampered.count - 1] ^= 1
        #expect(decrypt(key, algorithm, tampered).0 == nil)

        let peer = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let parameters: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: 32]
        var exchangeError: Unmanaged<CFError>?
        let mine = SecKeyCopyKeyExchangeResult(
            key, .ecdhKeyExchangeStandardX963SHA256, try SecurityTests.publicKey(of: peer), parameters as CFDictionary,
            &exchangeError)
        let theirs = SecKeyCopyKeyExchangeResult(
            peer, .ecdhKeyExchangeStandardX963SHA256, publicKey, parameters as CFDictionary, nil)
        #expect(exchangeError == nil)
        #expect(mine != nil && (mine as Data?)?.count == 32 && (mine as Data?) == (theirs as Data?))
    }

    @Test func onlyP256KeysAreHeldByTheToken() {
        let tag = uniqueTag()
        for (type, bits) in [(kSecAttrKeyTypeRSA, 2048), (kSecAttrKeyTypeECSECPrimeRandom, 384)] as [(CFString, Int)] {
            var parameters = enclaveParameters(tag: tag)
            parameters[kSecAttrKeyType as String] = type
            parameters[kSecAttrKeySizeInBits as String] = bits
            let (key, status) = creationError(parameters)
            #expect(key == nil && status == Int(errSecParam), "\(type) \(bits)")
        }
        var otherToken = enclaveParameters(tag: tag)
        otherToken[kSecAttrTokenID as String] = "com.example.token"
        #expect(creationError(otherToken).1 == Int(errSecParam))
        // None of them stored anything.
        let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
    }

    @Test func thePrivateKeyAppearsInNoKeychainFileOrLogInClear() throws {
        let home = try makeTemporaryFolder("clavis-enclave-keys") + "/home"
        let tag = uniqueTag()
        let key = try withKeychainHome(home) {
            let key = try makeEnclaveKey(tag: tag)
            #expect(sign(key, .ecdsaSignatureMessageX962SHA256, message).0 != nil)
            // clavisd writes a request's entry after its answer; a question to the log first writes every entry
            // handed over, so the file read below holds the signature's.
            if TestKeychain.daemon != nil { _ = try KeychainClient().accessLog(AccessLogQuery()) }
            return key
        }
        let point = try externalRepresentation(publicKey(of: key))
        // The test reads the item's sealed secret past the service, as only the keychain's own engine can.
        let keychain = try Keychain(home: KeychainHome(path: home))
        let stored = try keychain.find(
            ItemQuery(
                itemClass: .key, attributes: [.applicationTag: .data(tag)], synchronizable: .any, limit: .one,
                returnsSecret: true)
        ).resultOrThrow()
        let secret = try #require(stored.first?.secret).withUnsafeBytes { Data($0) }
        #expect(secret.count == 97 && secret.prefix(65) == point, "the stored secret is the key's private key")
        let scalar = secret.suffix(32)
        // Through clavisd, the access log names the key item each use touched, and nothing of what it signed.
        let log = try? Data(contentsOf: URL(fileURLWithPath: home + "/access.log"))
        #expect((log != nil) == (TestKeychain.daemon != nil))
        if let log, let reference = stored.first?.persistentReference {
            let lines = String(decoding: log, as: UTF8.self).split(separator: "\n")
            let uses = lines.filter { $0.contains("\"useKey\"") }
            #expect(uses.count == 1)
            #expect(uses.first?.contains(Data(reference.bytes).base64EncodedString()) == true)
            #expect(lines.contains { $0.contains("\"generateKey\"") })
        }
        let files = try ["keychain.db", "keychain.db-wal", "access.log"].compactMap { name in
            FileManager.default.fileExists(atPath: home + "/" + name)
                ? try Data(contentsOf: URL(fileURLWithPath: home + "/" + name)) : nil
        }
        #expect(files.reduce(0) { $0 + $1.count } > 0)
        for file in files {
            for encoding in [
                Data(scalar), Data(scalar.hexString.utf8), Data(scalar.base64EncodedString().utf8),
            ] {
                #expect(file.range(of: encoding) == nil, "private key bytes found in clear")
            }
        }
    }

    @Test func aBiometryCurrentSetKeySignsOnlyWithAnEvaluatedContext() async throws {
        let sensor = try OwnSensorKeychain()
        let tag = uniqueTag()
        let access = ACL.access([.privateKeyUsage, .biometryCurrentSet])
        let key = try sensor.run { try makeEnclaveKey(tag: tag, access: access) }
        let publicKey = try publicKey(of: key)

        // Without a context that may not ask, the key is not even found; a failed scan fails the signature.
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
        ]
        #expect(sensor.run { copyMatching(query.merging(ACL.noUI) { $1 }).0 } == errSecInteractionNotAllowed)
        sensor.write(outcomes: ["no-match"])
        let refused = sensor.run { sign(key, .ecdsaSignatureMessageX962SHA256, message) }
        #expect(refused.0 == nil && code(refused.1) == Int(errSecAuthFailed))
        #expect(sensor.remainingOutcomes.isEmpty)

        // A context evaluated against the sensor finds the key and signs with it, asking nothing more.
        sensor.write(outcomes: ["match"])
        let signature: Data? = try await sensor.run {
            let context = LAContext()
            #expect(
                try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in"))
            context.interactionNotAllowed = true
            let (status, found) = copyMatching(
                query.merging([kSecUseAuthenticationContext as String: context]) { $1 })
            #expect(status == errSecSuccess)
            let reference = try #require(found as! SecKey?)
            return sign(reference, .ecdsaSignatureMessageX962SHA256, message).0
        }
        #expect(sensor.remainingOutcomes.isEmpty)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, message, try #require(signature)).0)
    }
}
