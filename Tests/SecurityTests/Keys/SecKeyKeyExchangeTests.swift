import ClavisCore
import ClavisCrypto
import ClavisTestSupport
import Foundation
import Security
import Testing

/// `SecKeyCopyKeyExchangeResult`: ECDH and its X9.63 KDF variants.
@Suite struct SecKeyKeyExchangeTests {
    static let kdfAlgorithms: [(SecKeyAlgorithm, DigestAlgorithm)] = [
        (.ecdhKeyExchangeStandardX963SHA1, .sha1), (.ecdhKeyExchangeStandardX963SHA224, .sha224),
        (.ecdhKeyExchangeStandardX963SHA256, .sha256), (.ecdhKeyExchangeStandardX963SHA384, .sha384),
        (.ecdhKeyExchangeStandardX963SHA512, .sha512), (.ecdhKeyExchangeCofactorX963SHA1, .sha1),
        (.ecdhKeyExchangeCofactorX963SHA224, .sha224), (.ecdhKeyExchangeCofactorX963SHA256, .sha256),
        (.ecdhKeyExchangeCofactorX963SHA384, .sha384), (.ecdhKeyExchangeCofactorX963SHA512, .sha512),
    ]

    func exchange(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ peer: SecKey, _ parameters: [String: Any])
        -> (Data?, CFError?)
    {
        var error: Unmanaged<CFError>?
        let result = SecKeyCopyKeyExchangeResult(key, algorithm, peer, parameters as CFDictionary, &error) as Data?
        return (result, error?.takeRetainedValue())
    }

    @Test(arguments: [SecKeyAlgorithm.ecdhKeyExchangeStandard, .ecdhKeyExchangeCofactor])
    func bothSidesAgreeOnTheSharedSecret(algorithm: SecKeyAlgorithm) throws {
        for (bits, length) in [(256, 32), (384, 48), (521, 66)] {
            let alice = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let bob = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: bits)
            let one = try #require(exchange(alice, algorithm, try publicKey(of: bob), [:]).0)
            let two = try #require(exchange(bob, algorithm, try publicKey(of: alice), [:]).0)
            #expect(one == two)
            #expect(one.count == length)
        }
    }

    @Test(arguments: kdfAlgorithms)
    func kdfVariantsDeriveTheRequestedSizeWithSharedInfo(algorithm: SecKeyAlgorithm, digest: DigestAlgorithm)
        throws
    {
        let alice = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let bob = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let sharedInfo = Data("context".utf8)
        let parameters: [String: Any] = [
            kSecKeyKeyExchangeParameterRequestedSize as String: 40,
            kSecKeyKeyExchangeParameterSharedInfo as String: sharedInfo,
        ]
        let derived = try #require(exchange(alice, algorithm, try publicKey(of: bob), parameters).0)
        #expect(derived.count == 40)
        #expect(exchange(bob, algorithm, try publicKey(of: alice), parameters).0 == derived)
        let secret = try #require(exchange(alice, .ecdhKeyExchangeStandard, try publicKey(of: bob), [:]).0)
        let expected = try X963KDF.deriveKey(
            from: SecureBytes(secret), sharedInfo: [UInt8](sharedInfo), digest: digest, outputByteCount: 40)
        #expect(derived == Data(expected.unprotectedBytes()))
    }

    /// Parameters spelled as Swift code on Apple platforms spells them: `SecKeyKeyExchangeParameter`'s raw values.
    @Test func parametersNamedThroughTheSwiftTypeAreTheConstants() throws {
        #expect(SecKeyKeyExchangeParameter.requestedSize.rawValue == kSecKeyKeyExchangeParameterRequestedSize)
        #expect(SecKeyKeyExchangeParameter.sharedInfo.rawValue == kSecKeyKeyExchangeParameterSharedInfo)
        #expect(SecKeyKeyExchangeParameter(rawValue: "requestedSize" as CFString) == .requestedSize)
        let alice = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let bob = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let parameters =
            [
                SecKeyKeyExchangeParameter.requestedSize.rawValue: 24,
                SecKeyKeyExchangeParameter.sharedInfo.rawValue: Data("swift".utf8),
            ] as CFDictionary
        var error: Unmanaged<CFError>?
        let derived =
            SecKeyCopyKeyExchangeResult(
                alice, .ecdhKeyExchangeStandardX963SHA256, try publicKey(of: bob), parameters, &error) as Data?
        #expect(derived?.count == 24, "\(String(describing: error?.takeRetainedValue()))")
        let spelledAsStrings: [String: Any] = [
            kSecKeyKeyExchangeParameterRequestedSize as String: 24,
            kSecKeyKeyExchangeParameterSharedInfo as String: Data("swift".utf8),
        ]
        #expect(
            exchange(alice, .ecdhKeyExchangeStandardX963SHA256, try publicKey(of: bob), spelledAsStrings).0 == derived)
    }

    @Test func kdfVariantWithoutRequestedSizeAnswersParam() throws {
        let alice = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let (result, error) = exchange(alice, .ecdhKeyExchangeStandardX963SHA256, try publicKey(of: alice), [:])
        #expect(result == nil)
        #expect(code(error) == Int(errSecParam))
    }

    @Test func peerOnAnotherCurveAnswersParam() throws {
        let alice = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let bob = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 384)
        let (result, error) = exchange(alice, .ecdhKeyExchangeStandard, try publicKey(of: bob), [:])
        #expect(result == nil)
        #expect(code(error) == Int(errSecParam))
    }

    @Test func publicOrRSAKeyCannotExchange() throws {
        let alice = try makePrivateKey(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256)
        let rsa = try makePrivateKey(type: kSecAttrKeyTypeRSA, bits: 1024)
        for key in [try publicKey(of: alice), rsa] {
            let (result, error) = exchange(key, .ecdhKeyExchangeStandard, try publicKey(of: alice), [:])
            #expect(result == nil)
            #expect(code(error) == Int(errSecParam))
            #expect(notSupported(error))
        }
    }
}
