import ClavisClient
import ClavisCore
import ClavisTestSupport
import Foundation
import LocalAuthentication
import Security
import Testing

/// Keys of the Secure Enclave token that are not permanent, written as apps and CryptoKit-style code make them
/// against Apple's framework: `SecKeyCreateRandomKey` with `kSecAttrTokenIDSecureEnclave` and no
/// `kSecAttrIsPermanent`. The key lives as long as its `SecKey`, no search finds it, its private key stays in the
/// keychain service, and its protection class and access control still hold.
@Suite(.serialized, .preparedKeychain) struct TransientEnclaveKeyTests {
    private let message = Data("a challenge to sign".utf8)

    /// A tag no other test uses.
    private func uniqueTag(_ function: String = #function) -> Data {
        Data("com.example.transient.\(function.prefix(40)).\(UUID().uuidString)".utf8)
    }

    /// The parameters of a P-256 key held by the Secure Enclave token and kept nowhere, with `extra` at the top
    /// level and `privateExtra` among the private key's attributes.
    private func transientParameters(
        tag: Data, access: SecAccessControl? = nil, extra: [String: Any] = [:], privateExtra: [String: Any] = [:]
    ) -> [String: Any] {
        var privateAttributes: [String: Any] = [kSecAttrApplicationTag as String: tag]
        if let access { privateAttributes[kSecAttrAccessControl as String] = access }
        privateAttributes.merge(privateExtra) { $1 }
        return [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecPrivateKeyAttrs as String: privateAttributes,
        ].merging(extra) { $1 }
    }

    /// Makes the key `parameters` describe, failing the test when it is refused.
    private func makeKey(_ parameters: [String: Any]) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        if let error { Issue.record("SecKeyCreateRandomKey: \(error.takeRetainedValue())") }
        return try #require(key)
    }

    @Test func aKeyThatIsNotPermanentSignsDecryptsAndAgreesAndIsStoredNowhere() throws {
        let tag = uniqueTag()
        let key = try makeKey(transientParameters(tag: tag))
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
        #expect(attributes[kSecAttrIsPermanent as String] as? Bool == false)
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag)
        #expect(attributes[kSecAttrIsExtractable as String] as? Bool == false)
        #expect(attributes[kClavisAttrTokenHolder as String] as? String == kClavisTokenHolderSoftware as String)

        // It signs, and an independent implementation verifies with its public key.
        let publicKey = try publicKey(of: key)
        let point = try externalRepresentation(publicKey)
        let signature = try #require(sign(key, .ecdsaSignatureMessageX962SHA256, message).0)
        #expect(verify(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature).0)
        #expect(
            try IndependentCrypto.run(
                "verify-ec", ["SHA256", "-", point.hexString, message.hexString, signature.hexString])
                == ["valid"])
        // It opens ECIES sealed to it and agrees on a shared secret with a peer.
        let algorithm = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM
        let sealed = try #require(encrypt(publicKey, algorithm, message).0)
        #expect(decrypt(key, algorithm, sealed).0 == message)
        let peer = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let exchange: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: 32]
        let mine = SecKeyCopyKeyExchangeResult(
            key, .ecdhKeyExchangeStandardX963SHA256, try SecurityTests.publicKey(of: peer), exchange as CFDictionary,
            nil)
        let theirs = SecKeyCopyKeyExchangeResult(
            peer, .ecdhKeyExchangeStandardX963SHA256, publicKey, exchange as CFDictionary, nil)
        #expect(mine != nil && (mine as Data?) == (theirs as Data?))

        // Its private key is not exportable, and no search finds it.
        var exportError: Unmanaged<CFError>?
        #expect(SecKeyCopyExternalRepresentation(key, &exportError) == nil)
        #expect(code(exportError?.takeRetainedValue()) == Int(errSecUnimplemented))
        let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
        // Two keys made alike are two keys.
        let other = try makeKey(transientParameters(tag: tag))
        #expect(other != key)
        #expect(
            !verify(
                publicKey, .ecdsaSignatureMessageX962SHA256, message,
                try #require(sign(other, .ecdsaSignatureMessageX962SHA256, message).0)
            ).0)
    }

    @Test func secItemAddKeepsItAfterAllWithItsClassAndAccessControl() throws {
        let tag = uniqueTag()
        let access = ACL.access([.privateKeyUsage], kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly)
        let key = try makeKey(transientParameters(tag: Data("made".utf8), access: access))
        let add: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrApplicationTag as String: tag,
            kSecAttrLabel as String: "kept", kSecReturnRef as String: true,
        ]
        let (status, added) = addItem(add)
        #expect(status == errSecSuccess)
        let stored = try #require(added as! SecKey?)
        #expect(stored == key)
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
            kSecReturnAttributes as String: true, kSecReturnRef as String: true,
        ]
        let (found, result) = copyMatching(query)
        #expect(found == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecAttrLabel as String] as? String == "kept")
        #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
        #expect(
            attributes[kSecAttrAccessible as String] as? String
                == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        #expect(attributes[kSecAttrAccessControl as String] != nil)
        // The stored key is the same key: what it signs, the first key's public key verifies.
        let reference = try #require(attributes[kSecValueRef as String] as! SecKey?)
        let signature = try #require(sign(reference, .ecdsaSignatureMessageX962SHA256, message).0)
        #expect(verify(try publicKey(of: key), .ecdsaSignatureMessageX962SHA256, message, signature).0)
        // Once only: the same key again is a duplicate.
        #expect(addItem(add).0 == errSecDuplicateItem)
        #expect(
            SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag] as CFDictionary)
                == errSecSuccess)
    }

    @Test func itsPublicKeyMayStillBeKeptWhenAsked() throws {
        let tag = uniqueTag()
        var parameters = transientParameters(tag: tag)
        parameters[kSecPublicKeyAttrs as String] = [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
        ]
        let key = try makeKey(parameters)
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        let (status, found) = copyMatching(query)
        #expect(status == errSecSuccess)
        let keys = try #require(found as? [SecKey])
        #expect(keys.count == 1, "the public key only")
        #expect(keys.first == (try publicKey(of: key)))
        #expect(
            SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag] as CFDictionary)
                == errSecSuccess)
    }

    @Test func aKeyOfAWhenUnlockedClassSignsOnlyWhileTheKeychainIsUnlocked() throws {
        let home = try makeTemporaryFolder("clavis-transient-locked") + "/home"
        try withKeychainHome(home) {
            let passcode = SecureBytes(Data("2468".utf8))
            try KeychainClient().setPasscode(passcode, current: nil, strength: .cheapForTesting)
            let key = try makeKey(transientParameters(tag: uniqueTag(), extra: ACL.noUI))
            #expect(sign(key, .ecdsaSignatureMessageX962SHA256, message).0 != nil)
            try KeychainClient().lock()
            let locked = sign(key, .ecdsaSignatureMessageX962SHA256, message)
            #expect(locked.0 == nil && code(locked.1) == Int(errSecInteractionNotAllowed))
            try KeychainClient().unlock(passcode: passcode)
            #expect(sign(key, .ecdsaSignatureMessageX962SHA256, message).0 != nil)

            // A key of the passcode-set class dies with the passcode, as Apple's does, even once a new one is set.
            let passcodeBound = try makeKey(
                transientParameters(
                    tag: uniqueTag(),
                    privateExtra: [kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly]))
            #expect(sign(passcodeBound, .ecdsaSignatureMessageX962SHA256, message).0 != nil)
            try KeychainClient().setPasscode(nil, current: passcode, strength: .cheapForTesting)
            #expect(sign(passcodeBound, .ecdsaSignatureMessageX962SHA256, message).0 == nil)
            try KeychainClient().setPasscode(passcode, current: nil, strength: .cheapForTesting)
            #expect(sign(passcodeBound, .ecdsaSignatureMessageX962SHA256, message).0 == nil)
            // Without a passcode the class cannot be asked for, and a class that may leave the device never.
            try KeychainClient().setPasscode(nil, current: passcode, strength: .cheapForTesting)
            var error: Unmanaged<CFError>?
            let refused = SecKeyCreateRandomKey(
                transientParameters(
                    tag: uniqueTag(),
                    privateExtra: [kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly])
                    as CFDictionary, &error)
            #expect(refused == nil && code(error?.takeRetainedValue()) == Int(errSecNotAvailable))
            let leaving = SecKeyCreateRandomKey(
                transientParameters(
                    tag: uniqueTag(), privateExtra: [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked])
                    as CFDictionary, &error)
            #expect(leaving == nil && code(error?.takeRetainedValue()) == Int(errSecParam))
        }
    }

    @Test func aBiometryCurrentSetKeySignsOnlyWithTheContextItWasMadeWith() async throws {
        let sensor = try OwnSensorKeychain()
        let access = ACL.access([.privateKeyUsage, .biometryCurrentSet])
        // Made with no context, each use scans: a failed scan fails the signature.
        let asking = try sensor.run { try makeKey(transientParameters(tag: uniqueTag(), access: access)) }
        sensor.write(outcomes: ["no-match"])
        let refused = sensor.run { sign(asking, .ecdsaSignatureMessageX962SHA256, message) }
        #expect(refused.0 == nil && code(refused.1) == Int(errSecAuthFailed))
        #expect(sensor.remainingOutcomes.isEmpty)
        sensor.write(outcomes: ["match"])
        #expect(sensor.run { sign(asking, .ecdsaSignatureMessageX962SHA256, message) }.0 != nil)
        #expect(sensor.remainingOutcomes.isEmpty)

        // Made with a context evaluated once, it signs as often as asked with no further scan.
        sensor.write(outcomes: ["match"])
        let signatures: [Data?] = try await sensor.run {
            let context = LAContext()
            #expect(
                try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in"))
            context.interactionNotAllowed = true
            let key = try makeKey(
                transientParameters(
                    tag: uniqueTag(), access: access, extra: [kSecUseAuthenticationContext as String: context]))
            return [
                sign(key, .ecdsaSignatureMessageX962SHA256, message).0,
                sign(key, .ecdsaSignatureMessageX962SHA256, message).0,
            ]
        }
        #expect(signatures.allSatisfy { $0 != nil })
        #expect(sensor.remainingOutcomes.isEmpty)
    }
}
