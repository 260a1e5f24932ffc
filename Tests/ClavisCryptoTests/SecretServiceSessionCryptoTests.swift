import ClavisCore
import ClavisCrypto
import Testing

/// The two primitives of the Secret Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session: AES-128-CBC with PKCS#7
/// (RFC 3602's vectors, which are whole blocks: the padding adds one block) and Diffie-Hellman over RFC 2409's
/// 1024-bit group (values cross-checked with Python's `pow`).
@Suite struct SecretServiceSessionCryptoTests {
    @Test func aesCBCMatchesRFC3602Case1AndAddsOnePaddingBlock() throws {
        let key = SecureBytes(hex("06a9214036b8a15b512e03d534120006"))
        let iv = hex("3dafba429d9eb430b422da802c9fac41")
        let ciphertext = try AESCBC.encrypt(SecureBytes(Array("Single block msg".utf8)), key: key, iv: iv)
        #expect(ciphertext.count == 32)
        #expect(Array(ciphertext.prefix(16)) == hex("e353779c1079aeb82708942dbe77181a"))
        #expect(try AESCBC.decrypt(ciphertext, key: key, iv: iv).unprotectedBytes() == Array("Single block msg".utf8))
    }

    @Test func aesCBCMatchesRFC3602Case2() throws {
        let key = SecureBytes(hex("c286696d887c9aa0611bbb3e2025a45a"))
        let iv = hex("562e17996d093d28ddb3ba695a2e6f58")
        let plaintext = (0..<32).map { UInt8($0) }
        let ciphertext = try AESCBC.encrypt(SecureBytes(plaintext), key: key, iv: iv)
        #expect(Array(ciphertext.prefix(32)) == hex("d296cd94c2cccf8a3a863028b5e1dc0a7586602d253cfff91b8266bea6d61ab1"))
        #expect(try AESCBC.decrypt(ciphertext, key: key, iv: iv).unprotectedBytes() == plaintext)
    }

    @Test func aesCBCRefusesAWrongKeyPartialBlocksAndBadSizes() throws {
        let key = SecureBytes([UInt8](repeating: 1, count: 16))
        let iv = [UInt8](repeating: 2, count: 16)
        let ciphertext = try AESCBC.encrypt(SecureBytes(Array("secret".utf8)), key: key, iv: iv)
        let wrongKey = SecureBytes([UInt8](repeating: 3, count: 16))
        // A wrong key almost always leaves bad padding; this one does (checked once, deterministic).
        #expect(throws: CryptoError.self) { try AESCBC.decrypt(ciphertext, key: wrongKey, iv: iv) }
        #expect(throws: CryptoError.self) { try AESCBC.decrypt(Array(ciphertext.prefix(15)), key: key, iv: iv) }
        #expect(throws: CryptoError.self) { try AESCBC.decrypt([], key: key, iv: iv) }
        #expect(throws: CryptoError.self) { try AESCBC.encrypt(SecureBytes([1]), key: key, iv: [1]) }
        #expect(throws: CryptoError.self) { try AESCBC.encrypt(SecureBytes([1]), key: SecureBytes([1]), iv: iv) }
    }

    @Test func diffieHellmanGroup2MatchesChosenExponents() throws {
        let ours = try DiffieHellmanGroup2(
            privateKey: SecureBytes(hex(String(repeating: "0123456789abcdef", count: 4))))
        let theirs = try DiffieHellmanGroup2(
            privateKey: SecureBytes(hex(String(repeating: "fedcba9876543210", count: 4))))
        #expect(
            ours.publicKey
                == hex(
                    "8087115ed28670eee8569b39819c1e0003bb1e0f70cadbd632353cb3c71b2c4dafe38b35465b8c1fc4c8d838665b3612"
                        + "f2aad22ff8b5fe51da0146e651371d4cc2a761e4bfa8bf5a0adff684de103f2e3b8635dad11f1ef6314701c5ba1fc4"
                        + "7f5e97c9c6d1b93db12ad2e353516a92f841105e21b0112be2d2b7d12d91261fad"))
        let shared = hex(
            "50d09ef9f5cd867bfe6840fc352520b2b92605d4ca19c954c0977d7ef36451bc6b71a35c11751b06cfacac64301fa668"
                + "93cc11c888d22b0bef230826eaa145e3cf22488ebf79a159c47225b7c13ff295b8e088110e1552d53d635f2836368a16"
                + "fe720e3d365b5e198868069e2638e0785f48021eab47036740058194140af5db")
        #expect(try ours.sharedSecret(with: theirs.publicKey).unprotectedBytes() == shared)
        #expect(try theirs.sharedSecret(with: ours.publicKey).unprotectedBytes() == shared)
    }

    @Test func diffieHellmanGroup2AgreesAndRefusesKeysOutsideTheGroup() throws {
        let first = try DiffieHellmanGroup2()
        let second = try DiffieHellmanGroup2()
        #expect(first.publicKey.count == DiffieHellmanGroup2.byteCount)
        #expect(
            try first.sharedSecret(with: second.publicKey).unprotectedBytes()
                == second.sharedSecret(with: first.publicKey).unprotectedBytes())
        // A short key is read as the number it is (secretstorage sends its key without leading zeros).
        #expect(try first.sharedSecret(with: [0, 0, 2]).count == DiffieHellmanGroup2.byteCount)
        var primeMinusOne = hex(
            "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
                + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
                + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF")
        primeMinusOne[127] -= 1
        for refused in [[], [0], [1], primeMinusOne, [UInt8](repeating: 0xFF, count: 129)] {
            #expect(throws: CryptoError.self) { try first.sharedSecret(with: refused) }
        }
    }
}
