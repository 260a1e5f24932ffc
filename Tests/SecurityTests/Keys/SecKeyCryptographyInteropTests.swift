import ClavisTestSupport
import Foundation
import Security
import Testing

/// Clavis against Python's `cryptography` package: signatures both ways, external representations through its
/// loaders, and Apple's ECIES and RSA-OAEP+AES-GCM reproduced independently in the script.
@Suite struct SecKeyCryptographyInteropTests {
    static let message = Data("interoperable message".utf8)
    static let hashes: [(String, SecKeyAlgorithm, SecKeyAlgorithm, SecKeyAlgorithm)] = [
        ("SHA1", .ecdsaSignatureMessageX962SHA1, .rsaSignatureMessagePKCS1v15SHA1, .rsaSignatureMessagePSSSHA1),
        ("SHA224", .ecdsaSignatureMessageX962SHA224, .rsaSignatureMessagePKCS1v15SHA224, .rsaSignatureMessagePSSSHA224),
        ("SHA256", .ecdsaSignatureMessageX962SHA256, .rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureMessagePSSSHA256),
        ("SHA384", .ecdsaSignatureMessageX962SHA384, .rsaSignatureMessagePKCS1v15SHA384, .rsaSignatureMessagePSSSHA384),
        ("SHA512", .ecdsaSignatureMessageX962SHA512, .rsaSignatureMessagePKCS1v15SHA512, .rsaSignatureMessagePSSSHA512),
    ]

    @Test func ecdsaSignaturesVerifyBothWaysOnEveryCurveAndHash() throws {
        for (bits, curve) in [(256, "P-256"), (384, "P-384"), (521, "P-521")] {
            let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let point = try externalRepresentation(publicKey(of: key))
            for (hash, algorithm, _, _) in Self.hashes {
                let signature = try #require(sign(key, algorithm, Self.message).0)
                let theirs = try IndependentCrypto.run(
                    "verify-ec", [hash, "-", point.hexString, Self.message.hexString, signature.hexString])
                #expect(theirs == ["valid"], "\(curve) \(hash)")
                var altered = signature
                altered[altered.count - 1] ^= 1
                let rejected = try IndependentCrypto.run(
                    "verify-ec", [hash, "-", point.hexString, Self.message.hexString, altered.hexString])
                #expect(rejected == ["invalid"])

                let made = try IndependentCrypto.run("sign-ec", [curve, hash, Self.message.hexString])
                let (theirKey, error) = makeKey(
                    Data(hex: made[0]), type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPublic)
                #expect(error == nil)
                #expect(verify(try #require(theirKey), algorithm, Self.message, Data(hex: made[1])).0)
            }
        }
    }

    @Test func rfc4754SignaturesVerifyInCryptography() throws {
        let cases: [(Int, String, SecKeyAlgorithm)] = [
            (256, "SHA256", .ecdsaSignatureMessageRFC4754SHA256), (384, "SHA384", .ecdsaSignatureMessageRFC4754SHA384),
            (521, "SHA512", .ecdsaSignatureMessageRFC4754SHA512),
        ]
        for (bits, hash, algorithm) in cases {
            let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let point = try externalRepresentation(publicKey(of: key)).hexString
            let signature = try #require(sign(key, algorithm, Self.message).0)
            let theirs = try IndependentCrypto.run(
                "verify-ec-raw", [hash, "-", point, Self.message.hexString, signature.hexString])
            #expect(theirs == ["valid"])
        }
    }

    @Test func rsaSignaturesVerifyBothWaysWithPKCS1AndPSS() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let der = try externalRepresentation(publicKey(of: key))
        for (hash, _, pkcs1, pss) in Self.hashes {
            for (padding, algorithm) in [("pkcs1", pkcs1), ("pss", pss)] {
                let signature = try #require(sign(key, algorithm, Self.message).0)
                let theirs = try IndependentCrypto.run(
                    "verify-rsa", [padding, hash, der.hexString, Self.message.hexString, signature.hexString])
                #expect(theirs == ["valid"], "\(padding) \(hash)")

                let made = try IndependentCrypto.run("sign-rsa", [padding, hash, Self.message.hexString])
                let (theirKey, error) = makeKey(
                    Data(hex: made[0]), type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPublic)
                #expect(error == nil)
                #expect(verify(try #require(theirKey), algorithm, Self.message, Data(hex: made[1])).0)
            }
        }
    }

    @Test func externalRepresentationsRoundTripThroughCryptographysLoaders() throws {
        for bits in [256, 384, 521] {
            let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let privateBytes = try externalRepresentation(key)
            let loaded = try IndependentCrypto.run("load-ec", ["-", "-", privateBytes.hexString])
            #expect(loaded == [privateBytes.hexString, try externalRepresentation(publicKey(of: key)).hexString])
        }
        let rsa = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let privateDER = try externalRepresentation(rsa)
        let publicDER = try externalRepresentation(publicKey(of: rsa))
        let loaded = try IndependentCrypto.run("load-rsa", ["-", "-", privateDER.hexString, publicDER.hexString])
        #expect(loaded == [privateDER.hexString, publicDER.hexString])
    }

    static let eciesCases: [(SecKeyAlgorithm, String, Bool)] = [
        (.eciesEncryptionStandardX963SHA1AESGCM, "SHA1", false),
        (.eciesEncryptionStandardX963SHA256AESGCM, "SHA256", false),
        (.eciesEncryptionCofactorX963SHA384AESGCM, "SHA384", false),
        (.eciesEncryptionStandardX963SHA512AESGCM, "SHA512", false),
        (.eciesEncryptionStandardVariableIVX963SHA224AESGCM, "SHA224", true),
        (.eciesEncryptionCofactorVariableIVX963SHA256AESGCM, "SHA256", true),
        (.eciesEncryptionStandardVariableIVX963SHA384AESGCM, "SHA384", true),
        (.eciesEncryptionCofactorVariableIVX963SHA512AESGCM, "SHA512", true),
    ]

    @Test func eciesMatchesApplesConstructionReproducedIndependently() throws {
        for bits in [256, 384, 521] {
            let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let privateHex = try externalRepresentation(key).hexString
            let publicHex = try externalRepresentation(publicKey(of: key)).hexString
            for (algorithm, hash, variable) in Self.eciesCases {
                let mode = variable ? "variable" : "zero"
                let ciphertext = try #require(encrypt(try publicKey(of: key), algorithm, Self.message).0)
                let opened = try IndependentCrypto.run("ecies-open", [hash, mode, privateHex, ciphertext.hexString])
                #expect(opened == [Self.message.hexString], "\(bits) \(algorithm.rawValue)")

                let sealed = try IndependentCrypto.run("ecies-seal", [hash, mode, publicHex, Self.message.hexString])
                #expect(decrypt(key, algorithm, Data(hex: sealed[0])).0 == Self.message)
                // The IV matters: a ciphertext made with the other IV rule does not open.
                let other = try IndependentCrypto.run(
                    "ecies-seal", [hash, variable ? "zero" : "variable", publicHex, Self.message.hexString])
                #expect(decrypt(key, algorithm, Data(hex: other[0])).0 == nil)
            }
        }
    }

    @Test func rsaOAEPAndItsAESGCMVariantInteroperate() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let privateHex = try externalRepresentation(key).hexString
        let publicHex = try externalRepresentation(publicKey(of: key)).hexString
        let cases: [(String, SecKeyAlgorithm, SecKeyAlgorithm)] = [
            ("SHA1", .rsaEncryptionOAEPSHA1, .rsaEncryptionOAEPSHA1AESGCM),
            ("SHA256", .rsaEncryptionOAEPSHA256, .rsaEncryptionOAEPSHA256AESGCM),
            ("SHA512", .rsaEncryptionOAEPSHA512, .rsaEncryptionOAEPSHA512AESGCM),
        ]
        for (hash, oaep, hybrid) in cases {
            let sealed = try IndependentCrypto.run("oaep-seal", [hash, "-", publicHex, Self.message.hexString])
            #expect(decrypt(key, oaep, Data(hex: sealed[0])).0 == Self.message)
            let wrapped = try IndependentCrypto.run(
                "oaep-aesgcm-seal", [hash, "-", publicHex, Self.message.hexString])
            #expect(decrypt(key, hybrid, Data(hex: wrapped[0])).0 == Self.message)
            let ours = try #require(encrypt(try publicKey(of: key), hybrid, Self.message).0)
            let opened = try IndependentCrypto.run("oaep-aesgcm-open", [hash, "-", privateHex, ours.hexString])
            #expect(opened == [Self.message.hexString])
        }
    }
}
