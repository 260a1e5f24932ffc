import ClavisCore
import ClavisCrypto
import Testing

/// Contexts kept from one call to the next give the published answers on every call, whatever came before.
@Suite struct KeptContextTests {
    @Test func oneGCMContextSealsAndOpensEveryPublishedVectorInTurn() throws {
        let context = AESGCMContext()
        for _ in 0..<2 {
            for vector in GCMVector.all {
                let sealed = try context.seal(
                    secureHex(vector.plaintext), key: secureHex(vector.key), nonce: hex(vector.nonce),
                    authenticating: hex(vector.aad))
                #expect(sealed == hex(vector.nonce) + hex(vector.ciphertext) + hex(vector.tag), "\(vector.name)")
                let opened = try context.open(sealed, key: secureHex(vector.key), authenticating: hex(vector.aad))
                #expect(opened.unprotectedBytes() == hex(vector.plaintext), "\(vector.name)")
            }
        }
    }

    @Test func aGCMContextOpensCorrectlyAfterAFailedTag() throws {
        let context = AESGCMContext()
        let vector = GCMVector.all[3]
        var box = hex(vector.nonce) + hex(vector.ciphertext) + hex(vector.tag)
        box[box.count - 1] ^= 1
        #expect(throws: CryptoError.authenticationFailed) {
            try context.open(box, key: secureHex(vector.key), authenticating: hex(vector.aad))
        }
        box[box.count - 1] ^= 1
        let opened = try context.open(box, key: secureHex(vector.key), authenticating: hex(vector.aad))
        #expect(opened.unprotectedBytes() == hex(vector.plaintext))
    }

    @Test func aKnownNonceBoxIsThePublishedCiphertextAndTagAndOpensOnlyUnderThatNonce() throws {
        let context = AESGCMContext()
        for vector in GCMVector.all {
            let key = secureHex(vector.key)
            let sealed = try context.seal(
                secureHex(vector.plaintext), key: key, knownNonce: hex(vector.nonce),
                authenticating: hex(vector.aad))
            #expect(sealed == hex(vector.ciphertext) + hex(vector.tag))
            let opened = try context.open(
                sealed, key: key, knownNonce: hex(vector.nonce), authenticating: hex(vector.aad))
            #expect(opened.unprotectedBytes() == hex(vector.plaintext))
            var otherNonce = hex(vector.nonce)
            otherNonce[0] ^= 1
            #expect(throws: CryptoError.authenticationFailed) {
                try context.open(sealed, key: key, knownNonce: otherNonce, authenticating: hex(vector.aad))
            }
        }
        #expect(throws: CryptoError.self) {
            try context.open(
                [UInt8](repeating: 0, count: 15), key: SecureRandom.secureBytes(count: 32),
                knownNonce: [UInt8](repeating: 0, count: 12), authenticating: [])
        }
    }

    @Test func aGCMContextStillSealsAndOpensAfterRefusingAKeyOfTheWrongSize() throws {
        let context = AESGCMContext()
        let vector = GCMVector.all[3]
        let shortKey = SecureRandom.secureBytes(count: 16)
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 16)) {
            try context.seal(
                secureHex(vector.plaintext), key: shortKey, knownNonce: hex(vector.nonce), authenticating: [])
        }
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 16)) {
            try context.open(
                hex(vector.ciphertext) + hex(vector.tag), key: shortKey, knownNonce: hex(vector.nonce),
                authenticating: [])
        }
        let sealed = try context.seal(
            secureHex(vector.plaintext), key: secureHex(vector.key), knownNonce: hex(vector.nonce),
            authenticating: hex(vector.aad))
        #expect(sealed == hex(vector.ciphertext) + hex(vector.tag))
        let opened = try context.open(
            sealed, key: secureHex(vector.key), knownNonce: hex(vector.nonce), authenticating: hex(vector.aad))
        #expect(opened.unprotectedBytes() == hex(vector.plaintext))
    }

    @Test func aGCMContextRefusesOtherAssociatedDataEachTime() throws {
        let context = AESGCMContext()
        let key = SecureRandom.secureBytes(count: 32)
        let sealed = try context.seal(SecureBytes(utf8("secret")), key: key, authenticating: utf8("row 1"))
        for _ in 0..<3 {
            #expect(throws: CryptoError.authenticationFailed) {
                try context.open(sealed, key: key, authenticating: utf8("row 2"))
            }
        }
        #expect(try context.open(sealed, key: key, authenticating: utf8("row 1")).unprotectedBytes() == utf8("secret"))
    }

    @Test func aKeptWrapKeyMatchesRFC3394AndRefusesAlteredBytesEachTime() throws {
        let kek = secureHex("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F")
        let key = secureHex("00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F")
        let wrapped = hex("28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21")
        let kept = try AESKeyWrapKey(kek)
        for _ in 0..<3 {
            #expect(try kept.wrap(key) == wrapped)
            #expect(try kept.unwrap(wrapped) == key)
            var altered = wrapped
            altered[5] ^= 0x80
            #expect(throws: CryptoError.authenticationFailed) { try kept.unwrap(altered) }
        }
        let fresh = SecureRandom.secureBytes(count: 32)
        #expect(try AESKeyWrap.unwrap(try kept.wrap(fresh), with: kek) == fresh)
    }

    @Test(arguments: [16, 24, 32, 40, 64, 256])
    func aKeptWrapKeyAgreesWithOpenSSLsWrapCipherInBothDirections(length: Int) throws {
        let kek = SecureRandom.secureBytes(count: 32)
        let kept = try AESKeyWrapKey(kek)
        for _ in 0..<4 {
            let key = SecureRandom.secureBytes(count: length)
            let wrapped = try AESKeyWrap.wrap(key, with: kek)
            #expect(try kept.wrap(key) == wrapped)
            #expect(try kept.unwrap(wrapped) == key)
        }
    }

    @Test func aKeptWrapKeyRefusesEveryAlteredByteAndAnotherKEK() throws {
        let kek = SecureRandom.secureBytes(count: 32)
        let kept = try AESKeyWrapKey(kek)
        let wrapped = try kept.wrap(SecureRandom.secureBytes(count: 32))
        for index in wrapped.indices {
            var altered = wrapped
            altered[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) { try kept.unwrap(altered) }
        }
        let other = try AESKeyWrapKey(SecureRandom.secureBytes(count: 32))
        #expect(throws: CryptoError.authenticationFailed) { try other.unwrap(wrapped) }
        #expect(throws: CryptoError.self) { try kept.unwrap(Array(wrapped.prefix(20))) }
        #expect(throws: CryptoError.self) { try kept.wrap(SecureRandom.secureBytes(count: 12)) }
    }

    @Test func aKeptWrapKeyRefusesAKEKOfTheWrongSize() {
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 16)) {
            try AESKeyWrapKey(SecureRandom.secureBytes(count: 16))
        }
    }

    @Test func aKeptHMACKeyMatchesRFC4231OnEveryCall() {
        let jefe = HMACSHA256Key(SecureBytes(utf8("Jefe")))
        let zeros = HMACSHA256Key(SecureBytes([UInt8](repeating: 0x0b, count: 20)))
        for _ in 0..<3 {
            #expect(
                jefe.authenticationCode(for: utf8("what do ya want for nothing?"))
                    == hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
            #expect(
                zeros.authenticationCode(for: utf8("Hi There"))
                    == hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"))
        }
        #expect(
            HMACSHA256Key(SecureBytes([UInt8]())).authenticationCode(for: [])
                == hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }

    @Test(arguments: [4, 8, 16, 32])
    func aTruncatedCodeIsTheRFC4231CodesFirstBytes(byteCount: Int) {
        let jefe = HMACSHA256Key(SecureBytes(utf8("Jefe")))
        let full = hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            jefe.authenticationCode(for: utf8("what do ya want for nothing?"), truncatedTo: byteCount)
                == Array(full.prefix(byteCount)))
    }

    @Test func aKeptHMACKeyDerivesTheRFC4231CodeAsAKeyBetweenOtherCodes() {
        let jefe = HMACSHA256Key(SecureBytes(utf8("Jefe")))
        for _ in 0..<2 {
            let derived = jefe.derivedKey(for: utf8("what do ya want for nothing?"))
            #expect(
                derived.unprotectedBytes()
                    == hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
            #expect(jefe.authenticationCode(for: []) != derived.unprotectedBytes())
        }
    }
}
