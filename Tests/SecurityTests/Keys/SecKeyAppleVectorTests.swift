import ClavisTestSupport
import Foundation
import Security
import Testing

/// Ciphertexts made by Apple's Security framework (`SecKeyCreateEncryptedData` in Swift on an Apple device) decrypt
/// in Clavis, and any change to them is refused.
///
/// The vectors are those of jedda/ECIES (MIT licence), `ecies_test.go`, `TestExternalDecryptSuccess`: each
/// plaintext is the vector's name; the private keys, given there as SEC 1 DER, are written here in Apple's X9.63
/// form (04 ‖ X ‖ Y ‖ K).
@Suite struct SecKeyAppleVectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let algorithm: String
        let key: String
        let ciphertext: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "P256-SHA224-0IV", algorithm: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM",
            key: """
                04ed6b6dc261bcaa48b96d4daeb4c6ae80159b583f49c7f50fce09c6c6d8601ed7b2a8f1a87c18c1c0f6536f18fe96b20637\
                21d175b3a44aeb03ef4e75586f279a9cb37dcca9b708d892075c1617c9973b4b3e671fcb3c8216cecda10b826c0021
                """,
            ciphertext: """
                04f20c85e40eaf3d25f7012370e1d0110d7a0fd1a8f129bc6c43372c080c10751ffde1f2deed285657e1da9a3da1c3c2b8a1\
                b66d0dbcc25b10d0de92349dceddab92fd07a852880b55c277f91d4e39e8b1109caa794927eb307c2dcaa867e636
                """),
        Vector(
            name: "P256-SHA256-VIV", algorithm: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV",
            key: """
                04ce0158c3746a73bd882181d5ec91fa336e399ff9cb9f1cab7b503bb1ce673addf56727c940b5c6b38758d1c8209dedbcb9\
                e5c7203e652b3d49342858e3d3476271a1c67a6ede41bf9d6e68cc3649f934c542f2fa3329c2710583ea31d5e29d14
                """,
            ciphertext: """
                048eac0421b27fdd7a190495dc31cebe61713a6cdb57da6ad3cc1c39d29a7a93f6fd0b5ea63f4cef57589335dfe8ea88b2d0\
                f2c952317e700c7d4a71673a021c36da958473cf086a1f083b2ba44d975176f4f55d2cdb491f8f7cc8949f9685bf
                """),
        Vector(
            name: "P384-SHA384-VIV", algorithm: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV",
            key: """
                04e8567ced64a375295868b7e3283770a23c36743e80835eb74fd6e1d0eb59f3e1756b35dc60c72354242e9c77482c6ee8e6\
                7baeb0c6bab6f33a966012afac5b48952e16f8d92ec828b99c00641e7a3b6a5016bff7c3eda43c037666599a21b1a5b92ede\
                b00518a2102d8eef58b796ff09b6083e60fe18de00a3ec1ee73ad7503bfe4f40f463a453c9ddfb74ca36f31c46
                """,
            ciphertext: """
                04ce394d111bc442dfc294d506696dcfeb01def86433ce66ff2880b04f0948d99754e79e506ce6c4fe59da37a00293f1b4e4\
                bc8a57e14cdfe6d9790ea09586c3730ab9e92ae55e4f71dbc08b9c4a728384ca7912eee00a4b79e1047ffe83ef7f88da1371\
                14ab1296e09bc74e0867be55143b84af2f234651c3be247ab9e5343c
                """),
        Vector(
            name: "P521-SHA512-0IV", algorithm: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM",
            key: """
                0400fe303c5f6ef6def59459719816c8305ba5fdc9c478a2d2249c8f136a3560a525695e8477d7f2788613a54d92d450de53\
                08c034af532dc4b227b1de0bbc447667c001b33e3c0b9b5ff0d986ce7e9d9308d4cbf26e9e6147cb53448d5bb07ad64a0bf9\
                2939d324c7a2c78fefe966336b7cc7ab8ab322dda3e5c221ebe95bc204874b39c200a8aa70759f49742dc9755a4cee08f506\
                091ea772cd4e4616a8462ac0d7b9c3ba32cc3875c94d0b559cde7f264d75a6a053a0c635d67ee6ef5c1ea9e1f46ad0e605
                """,
            ciphertext: """
                04006a26831af3d683d2b46467e5ab9964dea947dcaf7baf2e6ca4eca95b58f9b8e66d29b437aab1ac45b6a78cd1547a2280\
                4c41cbdc09c5be87394b3ebee2d792c99400f32987bb6a5ed5a75d1f2419e784cd8aed9d76a3f56d3b29c412df9e7792243f\
                d062a2937fdecc25efd71a1d0a97c57f925908a3c28b0c874ac614964f8ec3c570fa5ef008fd0a2277cb48511f50f87e9faa\
                b69c7d2ce04bcae5ef4707458b46
                """),
    ]

    @Test(arguments: vectors)
    func appleCiphertextDecrypts(_ vector: Vector) throws {
        let (made, error) = makeKey(
            Data(hex: vector.key), type: kSecAttrKeyTypeECSECPrimeRandom, keyClass: kSecAttrKeyClassPrivate)
        #expect(error == nil)
        let key = try #require(made)
        let algorithm = SecKeyAlgorithm(rawValue: vector.algorithm as CFString)
        let ciphertext = Data(hex: vector.ciphertext)
        #expect(decrypt(key, algorithm, ciphertext).0 == Data(vector.name.utf8))
        var altered = ciphertext
        altered[altered.count - 17] ^= 1
        #expect(decrypt(key, algorithm, altered).0 == nil)
    }
}
