import ClavisClient
import ClavisCore
import Foundation
import Security
import Testing

/// Through Apple's API, as an app writes it: on a keychain bound to a TPM, a `kSecAttrTokenIDSecureEnclave` key is
/// made and used by the TPM, and no call exports its private key.
@Suite(.serialized)
struct TPMEnclaveKeyTests {
    @Test func secKeyOnATPMBoundKeychainSignsAndExportsNothing() throws {
        var tpm: SoftwareTPM? = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let configuration = ClavisConfiguration.bound(to: try #require(tpm), home: folder.home)
        try ClavisConfiguration.withConfiguration(configuration) {
            let parameters: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                kSecPrivateKeyAttrs as String: [
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("tpm.key".utf8),
                ],
            ]
            var error: Unmanaged<CFError>?
            let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let message = Data("signed by the TPM".utf8) as CFData
            let algorithm = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256
            let signature = try #require(SecKeyCreateSignature(key, algorithm, message, &error))
            #expect(SecKeyVerifySignature(publicKey, algorithm, message, signature, &error))
            // Apple's other digest lengths sign in the TPM too.
            for other in [SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384, .ecdsaSignatureMessageX962SHA512] {
                let signed = try #require(SecKeyCreateSignature(key, other, message, &error))
                #expect(SecKeyVerifySignature(publicKey, other, message, signed, &error))
            }
            #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
            let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
            #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
            #expect(attributes[kSecValueData as String] == nil)
            // Apple's token name for both kinds; Clavis's own attribute tells that this one never left the TPM.
            #expect(attributes[kClavisAttrTokenHolder as String] as? String == kClavisTokenHolderTPM as String)
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("tpm.key".utf8),
                kSecReturnAttributes as String: true,
            ]
            var found: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &found) == errSecSuccess)
            #expect((found as? [String: Any])?[kClavisAttrTokenHolder as String] as? String == "tpm")
            // The keychain stays open in this process, but the private key is in the TPM: without it, no signature.
            tpm = nil
            #expect(SecKeyCreateSignature(key, algorithm, message, &error) == nil)
        }
    }

    @Test func aKeyThatIsNotPermanentIsMadeAndUsedByTheTPMToo() throws {
        var tpm: SoftwareTPM? = try SoftwareTPM()
        let folder = try TemporaryFolder()
        let configuration = ClavisConfiguration.bound(to: try #require(tpm), home: folder.home)
        try ClavisConfiguration.withConfiguration(configuration) {
            let parameters: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            ]
            var error: Unmanaged<CFError>?
            let key = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, &error))
            let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
            #expect(attributes[kClavisAttrTokenHolder as String] as? String == kClavisTokenHolderTPM as String)
            #expect(attributes[kSecAttrIsPermanent as String] as? Bool == false)
            let publicKey = try #require(SecKeyCopyPublicKey(key))
            let message = Data("signed by the TPM, kept nowhere".utf8) as CFData
            let algorithm = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256
            let signature = try #require(SecKeyCreateSignature(key, algorithm, message, &error))
            #expect(SecKeyVerifySignature(publicKey, algorithm, message, signature, &error))
            let query: [String: Any] = [kSecClass as String: kSecClassKey]
            #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
            // The sealed box holds the TPM's object: without the TPM, no signature.
            tpm = nil
            #expect(SecKeyCreateSignature(key, algorithm, message, &error) == nil)
        }
    }
}
