import ClavisTestSupport
import Foundation
import Security
import Testing

/// `SecKeyCreateEncryptedData` and `SecKeyCreateDecryptedData` for RSA and Apple's ECIES.
@Suite struct SecKeyEncryptionTests {
    static let rsaAlgorithms: [SecKeyAlgorithm] = [
        .rsaEncryptionPKCS1, .rsaEncryptionOAEPSHA1, .rsaEncryptionOAEPSHA224, .rsaEncryptionOAEPSHA256,
        .rsaEncryptionOAEPSHA384, .rsaEncryptionOAEPSHA512, .rsaEncryptionOAEPSHA1AESGCM,
        .rsaEncryptionOAEPSHA224AESGCM, .rsaEncryptionOAEPSHA256AESGCM, .rsaEncryptionOAEPSHA384AESGCM,
        .rsaEncryptionOAEPSHA512AESGCM,
    ]

    static let eciesAlgorithms: [SecKeyAlgorithm] = [
        .eciesEncryptionStandardX963SHA1AESGCM, .eciesEncryptionStandardX963SHA224AESGCM,
        .eciesEncryptionStandardX963SHA256AESGCM, .eciesEncryptionStandardX963SHA384AESGCM,
        .eciesEncryptionStandardX963SHA512AESGCM, .eciesEncryptionCofactorX963SHA1AESGCM,
        .eciesEncryptionCofactorX963SHA224AESGCM, .eciesEncryptionCofactorX963SHA256AESGCM,
        .eciesEncryptionCofactorX963SHA384AESGCM, .eciesEncryptionCofactorX963SHA512AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA224AESGCM, .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
        .eciesEncryptionStandardVariableIVX963SHA384AESGCM, .eciesEncryptionStandardVariableIVX963SHA512AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA224AESGCM, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
        .eciesEncryptionCofactorVariableIVX963SHA384AESGCM, .eciesEncryptionCofactorVariableIVX963SHA512AESGCM,
    ]

    static let message = Data("meet me at the usual place".utf8)

    @Test(arguments: rsaAlgorithms)
    func rsaRoundTripsAndRefusesAlteredCiphertext(algorithm: SecKeyAlgorithm) throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 2048)
        let publicKey = try publicKey(of: key)
        #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm))
        #expect(SecKeyIsAlgorithmSupported(key, .decrypt, algorithm))
        let ciphertext = try #require(encrypt(publicKey, algorithm, Self.message).0)
        #expect(decrypt(key, algorithm, ciphertext).0 == Self.message)
        var altered = ciphertext
        altered[altered.count - 1] ^= 1
        let (plaintext, error) = decrypt(key, algorithm, altered)
        #expect(plaintext == nil)
        #expect(code(error) == Int(errSecParam))
    }

    @Test(arguments: eciesAlgorithms)
    func eciesRoundTripsOnEveryCurve(algorithm: SecKeyAlgorithm) throws {
        for (bits, pointLength) in [(256, 65), (384, 97), (521, 133)] {
            let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let publicKey = try publicKey(of: key)
            let ciphertext = try #require(encrypt(publicKey, algorithm, Self.message).0)
            #expect(ciphertext.count == pointLength + Self.message.count + 16)
            #expect(ciphertext.first == 4)
            #expect(decrypt(key, algorithm, ciphertext).0 == Self.message)
            let (plaintext, error) = decrypt(key, algorithm, ciphertext.dropLast())
            #expect(plaintext == nil)
            #expect(code(error) == Int(errSecParam))
        }
    }

    @Test func emptyMessageEncryptsWithECIES() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let algorithm = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM
        let ciphertext = try #require(encrypt(try publicKey(of: key), algorithm, Data()).0)
        #expect(ciphertext.count == 65 + 16)
        #expect(decrypt(key, algorithm, ciphertext).0 == Data())
    }

    @Test func rawRSAEncryptionTakesExactlyOneBlock() throws {
        let key = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        let publicKey = try publicKey(of: key)
        var block = Data(repeating: 7, count: 128)
        block[0] = 0
        let ciphertext = try #require(encrypt(publicKey, .rsaEncryptionRaw, block).0)
        #expect(decrypt(key, .rsaEncryptionRaw, ciphertext).0 == block)
        for wrong in [Data(count: 127), Data(count: 129), Data(repeating: 0xff, count: 128)] {
            let (result, error) = encrypt(publicKey, .rsaEncryptionRaw, wrong)
            #expect(result == nil)
            #expect(code(error) == Int(errSecParam))
        }
    }

    @Test func tooLongMessageAnswersParam() throws {
        let publicKey = try publicKey(of: makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024))
        let (result, error) = encrypt(publicKey, .rsaEncryptionOAEPSHA256, Data(count: 128 - 2 * 32 - 1))
        #expect(result == nil)
        #expect(code(error) == Int(errSecParam))
        #expect(encrypt(publicKey, .rsaEncryptionOAEPSHA256, Data(count: 128 - 2 * 32 - 2)).0 != nil)
    }

    @Test func encryptingWithPrivateOrWrongTypeKeyAnswersParamAsApple() throws {
        let ec = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        for (key, algorithm) in [
            (ec, SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM),
            (try publicKey(of: ec), .rsaEncryptionOAEPSHA256),
            (try publicKey(of: rsa), .eciesEncryptionStandardX963SHA256AESGCM),
        ] {
            let (result, error) = encrypt(key, algorithm, Self.message)
            #expect(result == nil)
            #expect(code(error) == Int(errSecParam))
            #expect(notSupported(error))
        }
        let (result, error) = decrypt(try publicKey(of: rsa), .rsaEncryptionOAEPSHA256, Data(count: 128))
        #expect(result == nil)
        #expect(code(error) == Int(errSecParam))
        #expect(notSupported(error))
    }
}
