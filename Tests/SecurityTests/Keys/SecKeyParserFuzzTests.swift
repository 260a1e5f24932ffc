import ClavisTestSupport
import Foundation
import Security
import Testing

@testable import clavis_fuzz

/// Random, truncated and bit-flipped input to every call that parses bytes: each answers a key, a result or an
/// error, and never traps.
@Suite struct SecKeyParserFuzzTests {
    /// Variants of `valid`: every truncation point in a sample, single bit flips, and random bytes of nearby
    /// lengths.
    static func mutations(of valid: Data, using generator: inout SplitMix64, count: Int) -> [Data] {
        var inputs: [Data] = [Data(), Data([4]), Data([0x30]), Data([0x30, 0x82, 0xff, 0xff])]
        for _ in 0..<count {
            inputs.append(valid.prefix(Int.random(in: 0...valid.count, using: &generator)))
            var flipped = valid
            let index = Int.random(in: 0..<valid.count, using: &generator)
            flipped[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            inputs.append(flipped)
            let length = max(0, valid.count + Int.random(in: -3...3, using: &generator))
            inputs.append(Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            var headed = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            if !headed.isEmpty { headed[0] = valid[0] }
            inputs.append(headed)
        }
        return inputs
    }

    @Test func keyParsersNeverTrap() throws {
        var generator = SplitMix64(state: 12)
        let ec = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        let samples: [(Data, CFString, CFString)] = [
            (try externalRepresentation(ec), kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPrivate),
            (try externalRepresentation(publicKey(of: ec)), kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPublic),
            (try externalRepresentation(rsa), kSecAttrKeyTypeRSA, kSecAttrKeyClassPrivate),
            (try externalRepresentation(publicKey(of: rsa)), kSecAttrKeyTypeRSA, kSecAttrKeyClassPublic),
        ]
        var accepted = 0
        var refused = 0
        for (valid, type, keyClass) in samples {
            for input in Self.mutations(of: valid, using: &generator, count: 150) {
                let (key, error) = makeKey(input, type: type, keyClass: keyClass)
                if let key {
                    // Whatever parses must work as a key: it exports, and signing or verifying answers.
                    #expect(try externalRepresentation(key).isEmpty == false)
                    _ = SecKeyCopyAttributes(key)
                    accepted += 1
                } else {
                    #expect(code(error) == Int(errSecParam))
                    refused += 1
                }
            }
        }
        #expect(refused > accepted)
    }

    @Test func signatureAndCiphertextParsersNeverTrap() throws {
        var generator = SplitMix64(state: 34)
        let ec = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let rsa = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        let message = Data("fuzz".utf8)
        for algorithm in [SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256, .ecdsaSignatureMessageRFC4754SHA256] {
            let signature = try #require(sign(ec, algorithm, message).0)
            for input in Self.mutations(of: signature, using: &generator, count: 100) where input != signature {
                let (valid, error) = verify(try publicKey(of: ec), algorithm, message, input)
                #expect(!valid)
                #expect(code(error) == Int(errSecVerifyFailed))
            }
        }
        for algorithm in [
            SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM, .eciesEncryptionStandardX963SHA1AESGCM,
        ] {
            let ciphertext = try #require(encrypt(try publicKey(of: ec), algorithm, message).0)
            for input in Self.mutations(of: ciphertext, using: &generator, count: 100) where input != ciphertext {
                let (plaintext, error) = decrypt(ec, algorithm, input)
                #expect(plaintext == nil)
                #expect(code(error) == Int(errSecParam))
            }
        }
        for algorithm in [
            SecKeyAlgorithm.rsaEncryptionPKCS1, .rsaEncryptionOAEPSHA256, .rsaEncryptionOAEPSHA256AESGCM,
            .rsaEncryptionRaw,
        ] {
            let ciphertext = try #require(
                encrypt(try publicKey(of: rsa), algorithm, algorithm == .rsaEncryptionRaw ? Data(count: 128) : message)
                    .0)
            for input in Self.mutations(of: ciphertext, using: &generator, count: 60) where input != ciphertext {
                // Raw RSA decrypts any block below the modulus; the others must refuse what they did not make.
                let (plaintext, error) = decrypt(rsa, algorithm, input)
                if algorithm != .rsaEncryptionRaw {
                    #expect(plaintext == nil)
                    #expect(code(error) == Int(errSecParam))
                }
            }
        }
    }
}
