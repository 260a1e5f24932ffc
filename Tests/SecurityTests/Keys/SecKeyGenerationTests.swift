import ClavisCrypto
import ClavisTestSupport
import Foundation
import Security
import Testing

/// Keys made with `SecKeyCreateRandomKey` and `SecKeyCreateWithData`, and what Apple's calls say about them.
@Suite struct SecKeyGenerationTests {
    @Test(arguments: [(256, 65, 32), (384, 97, 48), (521, 133, 66)])
    func ecKeyHasApplesSizesAndRepresentation(bits: Int, pointLength: Int, blockSize: Int) throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
        let publicKey = try publicKey(of: key)
        #expect(CFGetTypeID(key) == SecKeyGetTypeID())
        #expect(SecKeyGetBlockSize(key) == blockSize)
        let publicBytes = try externalRepresentation(publicKey)
        #expect(publicBytes.count == pointLength && publicBytes.first == 4)
        let privateBytes = try externalRepresentation(key)
        #expect(privateBytes.count == pointLength + blockSize)
        #expect(privateBytes.prefix(pointLength) == publicBytes)
    }

    @Test func attributesFollowApple() throws {
        let tag = Data("com.example.signing".utf8)
        let key = try makePrivateKey(
            type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256,
            extra: [
                kSecAttrLabel as String: "signing key",
                kSecPrivateKeyAttrs as String: [
                    kSecAttrApplicationTag as String: tag, kSecAttrCanDecrypt as String: false,
                    kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                ],
            ])
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecClass as String] as? String == kSecClassKey as String)
        #expect(attributes[kSecAttrIsExtractable as String] as? Bool == true)
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
        #expect(attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeECSECPrimeRandom as String)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
        #expect(attributes[kSecAttrEffectiveKeySize as String] as? Int == 256)
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag)
        #expect(attributes[kSecAttrLabel as String] as? String == "signing key")
        #expect(attributes[kSecAttrCanSign as String] as? Bool == true)
        #expect(attributes[kSecAttrCanVerify as String] as? Bool == false)
        #expect(attributes[kSecAttrCanDecrypt as String] as? Bool == false)
        let publicBytes = try externalRepresentation(publicKey(of: key))
        let hash = Data(DigestAlgorithm.sha1.hash([UInt8](publicBytes)))
        #expect(attributes[kSecAttrApplicationLabel as String] as? Data == hash)

        let publicAttributes = try #require(SecKeyCopyAttributes(publicKey(of: key)) as? [String: Any])
        #expect(publicAttributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPublic as String)
        #expect(publicAttributes[kSecAttrApplicationLabel as String] as? Data == hash)
        #expect(publicAttributes[kSecAttrApplicationTag as String] == nil)
        #expect(publicAttributes[kSecAttrLabel as String] as? String == "signing key")
        #expect(publicAttributes[kSecAttrCanVerify as String] as? Bool == true)
        #expect(publicAttributes[kSecValueData as String] as? Data == publicBytes)
        #expect(attributes[kSecValueData as String] == nil)
    }

    @Test func rsaKeyRoundTripsThroughPKCS1() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        #expect(SecKeyGetBlockSize(key) == 256)
        let privateBytes = try externalRepresentation(key)
        let publicBytes = try externalRepresentation(publicKey(of: key))
        #expect(privateBytes.first == 0x30 && publicBytes.first == 0x30)
        let (copy, error) = makeKey(privateBytes, type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPrivate)
        #expect(error == nil)
        let copied = try #require(copy)
        #expect(try externalRepresentation(copied) == privateBytes)
        #expect(try externalRepresentation(publicKey(of: copied)) == publicBytes)
        let attributes = try #require(SecKeyCopyAttributes(copied) as? [String: Any])
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 2048)
        #expect(attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeRSA as String)
        #expect(
            attributes[kSecAttrApplicationLabel as String] as? Data
                == Data(DigestAlgorithm.sha1.hash([UInt8](publicBytes))))
    }

    // Permanent keys are stored: see KeyItemTests; keys held by a token: EnclaveKeyTests, TransientEnclaveKeyTests.
    @Test func aTokenKeyTheTokenCannotHoldAnswersParam() {
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 384,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
        ]
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateRandomKey(parameters as CFDictionary, &error) == nil)
        let reported = error?.takeRetainedValue()
        #expect(code(reported) == Int(errSecParam))
        #expect(reported.map { CFErrorGetDomain($0) as String } == kCFErrorDomainOSStatus as String)
    }

    @Test(
        arguments: [
            ("73", 255), ("73", 1024), ("42", 512), ("42", 8192), ("42", 1 << 40), ("42", -2048), ("42", 2047),
            ("2147483649", 256),
        ] as [(String, Int)])
    func unsupportedTypeOrSizeAnswersParam(type: String, bits: Int) {
        var error: Unmanaged<CFError>?
        let parameters = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits] as CFDictionary
        #expect(SecKeyCreateRandomKey(parameters, &error) == nil)
        #expect(code(error?.takeRetainedValue()) == Int(errSecParam))
    }

    @Test func malformedDataAnswersParam() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        var point = try externalRepresentation(publicKey(of: key))
        point[64] ^= 1  // off the curve
        for (data, keyClass) in [
            (point, kSecAttrKeyClassPublic), (point.prefix(64), kSecAttrKeyClassPublic),
            (try externalRepresentation(key).dropLast(), kSecAttrKeyClassPrivate),
        ] {
            let (made, error) = makeKey(Data(data), type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: keyClass)
            #expect(made == nil)
            #expect(code(error) == Int(errSecParam))
        }
        let rsa = try externalRepresentation(publicKey(of: makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)))
        for data in [rsa.dropLast(), rsa + Data([0])] {
            let (made, error) = makeKey(Data(data), type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPublic)
            #expect(made == nil)
            #expect(code(error) == Int(errSecParam))
        }
    }

    @Test func oneKeySignsFromManyTasksAtOnce() async throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let publicKey = try publicKey(of: key)
        let allVerified = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<50).allSatisfy { index in
                        let message = Data("task \(task) message \(index)".utf8)
                        guard let signature = sign(key, .ecdsaSignatureMessageX962SHA256, message).0 else {
                            return false
                        }
                        return verify(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature).0
                    }
                }
            }
            return await group.allSatisfy { $0 }
        }
        #expect(allVerified)
    }

    @Test func keyTypeAndClassMayBeNumbersAndSymmetricIsUnimplemented() throws {
        let point = try externalRepresentation(publicKey(of: makePrivateKey(type: kSecAttrKeyTypeEC, bits: 256)))
        var error: Unmanaged<CFError>?
        let numeric = [kSecAttrKeyType as String: 73, kSecAttrKeyClass as String: 0] as CFDictionary
        #expect(SecKeyCreateWithData(point as CFData, numeric, &error) != nil)
        let symmetric =
            [kSecAttrKeyType as String: kSecAttrKeyTypeAES, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric]
            as CFDictionary
        #expect(SecKeyCreateWithData(Data(count: 32) as CFData, symmetric, &error) == nil)
        #expect(code(error?.takeRetainedValue()) == Int(errSecUnimplemented))
        let unknown = [kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: "7"] as CFDictionary
        #expect(SecKeyCreateWithData(point as CFData, unknown, &error) == nil)
        #expect(code(error?.takeRetainedValue()) == Int(errSecParam))
    }

    @Test func hugeRSAPublicKeyAnswersParam() {
        // RSAPublicKey { modulus: 16,384 bits, publicExponent: 65537 }, well-formed DER beyond any size Apple takes.
        let modulus = Data([0x40]) + Data(repeating: 0x55, count: 2046) + Data([0x01])
        let der =
            Data([0x30, 0x82, 0x08, 0x09, 0x02, 0x82, 0x08, 0x00]) + modulus + Data([0x02, 0x03, 0x01, 0x00, 0x01])
        let (key, error) = makeKey(der, type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPublic)
        #expect(key == nil)
        #expect(code(error) == Int(errSecParam))
    }

    @Test func descriptionNamesTheKeyWithoutItsBytes() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let scalar = try externalRepresentation(key).suffix(32).hexString
        #expect(String(describing: key).contains("ECPrivateKey"))
        #expect(!String(describing: key).lowercased().contains(scalar))
    }
}
