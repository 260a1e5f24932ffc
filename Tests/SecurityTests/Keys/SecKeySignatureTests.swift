import ClavisCrypto
import ClavisTestSupport
import Foundation
import Security
import Testing

/// `SecKeyCreateSignature` and `SecKeyVerifySignature` for every signature algorithm of EC and RSA keys.
@Suite struct SecKeySignatureTests {
    /// An algorithm with how its input is made from a message.
    struct Case: Sendable, CustomTestStringConvertible {
        let algorithm: SecKeyAlgorithm
        let isRSA: Bool
        /// The hash whose digest the algorithm takes; nil when it takes the message itself (or any input).
        let digest: DigestAlgorithm?
        var testDescription: String { algorithm.rawValue as String }
    }

    static let ecCases: [Case] =
        [
            Case(algorithm: .ecdsaSignatureRFC4754, isRSA: false, digest: .sha256),
            Case(algorithm: .ecdsaSignatureDigestX962, isRSA: false, digest: .sha384),
        ]
        + zip(
            DigestAlgorithm.allCases,
            [
                (
                    SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1,
                    SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA1, SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA1
                ),
                (
                    .ecdsaSignatureDigestX962SHA224, .ecdsaSignatureMessageX962SHA224,
                    .ecdsaSignatureDigestRFC4754SHA224, .ecdsaSignatureMessageRFC4754SHA224
                ),
                (
                    .ecdsaSignatureDigestX962SHA256, .ecdsaSignatureMessageX962SHA256,
                    .ecdsaSignatureDigestRFC4754SHA256, .ecdsaSignatureMessageRFC4754SHA256
                ),
                (
                    .ecdsaSignatureDigestX962SHA384, .ecdsaSignatureMessageX962SHA384,
                    .ecdsaSignatureDigestRFC4754SHA384, .ecdsaSignatureMessageRFC4754SHA384
                ),
                (
                    .ecdsaSignatureDigestX962SHA512, .ecdsaSignatureMessageX962SHA512,
                    .ecdsaSignatureDigestRFC4754SHA512, .ecdsaSignatureMessageRFC4754SHA512
                ),
            ]
        ).flatMap { digest, algorithms in
            [
                Case(algorithm: algorithms.0, isRSA: false, digest: digest),
                Case(algorithm: algorithms.1, isRSA: false, digest: nil),
                Case(algorithm: algorithms.2, isRSA: false, digest: digest),
                Case(algorithm: algorithms.3, isRSA: false, digest: nil),
            ]
        }

    static let rsaCases: [Case] =
        [Case(algorithm: .rsaSignatureDigestPKCS1v15Raw, isRSA: true, digest: .sha1)]
        + zip(
            DigestAlgorithm.allCases,
            [
                (
                    SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1, SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1,
                    SecKeyAlgorithm.rsaSignatureDigestPSSSHA1, SecKeyAlgorithm.rsaSignatureMessagePSSSHA1
                ),
                (
                    .rsaSignatureDigestPKCS1v15SHA224, .rsaSignatureMessagePKCS1v15SHA224, .rsaSignatureDigestPSSSHA224,
                    .rsaSignatureMessagePSSSHA224
                ),
                (
                    .rsaSignatureDigestPKCS1v15SHA256, .rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureDigestPSSSHA256,
                    .rsaSignatureMessagePSSSHA256
                ),
                (
                    .rsaSignatureDigestPKCS1v15SHA384, .rsaSignatureMessagePKCS1v15SHA384, .rsaSignatureDigestPSSSHA384,
                    .rsaSignatureMessagePSSSHA384
                ),
                (
                    .rsaSignatureDigestPKCS1v15SHA512, .rsaSignatureMessagePKCS1v15SHA512, .rsaSignatureDigestPSSSHA512,
                    .rsaSignatureMessagePSSSHA512
                ),
            ]
        ).flatMap { digest, algorithms in
            [
                Case(algorithm: algorithms.0, isRSA: true, digest: digest),
                Case(algorithm: algorithms.1, isRSA: true, digest: nil),
                Case(algorithm: algorithms.2, isRSA: true, digest: digest),
                Case(algorithm: algorithms.3, isRSA: true, digest: nil),
            ]
        }

    static let message = Data("The quick brown fox jumps over the lazy dog".utf8)

    @Test(arguments: ecCases + rsaCases)
    func signatureVerifiesAndFailsOnAnyChange(_ testCase: Case) throws {
        let keys =
            testCase.isRSA
            ? [try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 2048)]
            : try [256, 384, 521].map { try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: $0) }
        for key in keys {
            let publicKey = try publicKey(of: key)
            let input = testCase.digest.map { Data($0.hash([UInt8](Self.message))) } ?? Self.message
            #expect(SecKeyIsAlgorithmSupported(key, .sign, testCase.algorithm))
            #expect(SecKeyIsAlgorithmSupported(publicKey, .verify, testCase.algorithm))
            #expect(!SecKeyIsAlgorithmSupported(publicKey, .sign, testCase.algorithm))
            let (signature, error) = sign(key, testCase.algorithm, input)
            #expect(error == nil)
            let signed = try #require(signature)
            #expect(verify(publicKey, testCase.algorithm, input, signed).0)

            var altered = input
            altered[0] ^= 1
            let (valid, failure) = verify(publicKey, testCase.algorithm, altered, signed)
            #expect(!valid)
            #expect(code(failure) == Int(errSecVerifyFailed))
            var badSignature = signed
            badSignature[badSignature.count / 2] ^= 0x40
            #expect(!verify(publicKey, testCase.algorithm, input, badSignature).0)
        }
    }

    @Test func pssIsUnsupportedWhenTwoDigestsDoNotFitTheModulus() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        let publicKey = try publicKey(of: key)
        // 128-byte blocks: SHA-384 (2 x 48 + 2) fits, SHA-512 (2 x 64 + 2) does not, as in Apple's check.
        #expect(SecKeyIsAlgorithmSupported(key, .sign, .rsaSignatureMessagePSSSHA384))
        #expect(!SecKeyIsAlgorithmSupported(key, .sign, .rsaSignatureMessagePSSSHA512))
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .verify, .rsaSignatureDigestPSSSHA512))
        #expect(SecKeyIsAlgorithmSupported(publicKey, .verify, .rsaSignatureDigestPSSSHA256))
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .sign, .rsaSignatureDigestPSSSHA256))
    }

    @Test func rfc4754SignaturesAreTwoCoordinatesLong() throws {
        for (bits, length) in [(256, 64), (384, 96), (521, 132)] {
            let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let signature = try #require(sign(key, .ecdsaSignatureMessageRFC4754SHA256, Self.message).0)
            #expect(signature.count == length)
        }
    }

    @Test func rawRSASignatureIsTheModularExponentiation() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        var block = Data(repeating: 0x5a, count: 128)
        block[0] = 0
        let signature = try #require(sign(key, .rsaSignatureRaw, block).0)
        #expect(signature.count == 128)
        #expect(verify(try publicKey(of: key), .rsaSignatureRaw, block, signature).0)
        for wrong in [block.dropFirst(), block + Data([1]), Data(repeating: 0xff, count: 128)] {
            let (result, error) = sign(key, .rsaSignatureRaw, Data(wrong))
            #expect(result == nil)
            #expect(code(error) == Int(errSecParam))
        }
    }

    @Test func wrongKeyClassOrTypeAnswersParamAsApple() throws {
        let ec = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        for (key, algorithm) in [
            (try publicKey(of: ec), SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256),
            (ec, .rsaSignatureMessagePKCS1v15SHA256), (rsa, .ecdsaSignatureMessageX962SHA256),
            (ec, .rsaEncryptionPKCS1), (ec, SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:unknown" as CFString)),
        ] {
            let (signature, error) = sign(key, algorithm, Self.message)
            #expect(signature == nil)
            #expect(code(error) == Int(errSecParam))
            #expect(notSupported(error))
        }
        let signature = try #require(sign(ec, .ecdsaSignatureMessageX962SHA256, Self.message).0)
        let (valid, error) = verify(ec, .ecdsaSignatureMessageX962SHA256, Self.message, signature)
        #expect(!valid)
        #expect(code(error) == Int(errSecParam))
        #expect(notSupported(error))
    }

    @Test func digestOfTheWrongLengthAnswersParam() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let (signature, error) = sign(key, .ecdsaSignatureDigestX962SHA256, Data(count: 31))
        #expect(signature == nil)
        #expect(code(error) == Int(errSecParam))
        let (valid, failure) = verify(try publicKey(of: key), .ecdsaSignatureDigestX962SHA256, Data(count: 33), Data())
        #expect(!valid)
        #expect(code(failure) == Int(errSecParam))
    }
}
