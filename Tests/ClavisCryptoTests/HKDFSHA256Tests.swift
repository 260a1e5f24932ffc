import ClavisCore
import ClavisCrypto
import Testing

@Suite struct HKDFSHA256Tests {
    let ikm = SecureBytes([UInt8](repeating: 0x0b, count: 22))

    @Test func deriveKeyMatchesRFC5869TestCase1() throws {
        let okm = try HKDFSHA256.deriveKey(
            from: ikm, salt: hex("000102030405060708090a0b0c"), info: hex("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        #expect(
            okm.unprotectedBytes()
                == hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    @Test func deriveKeyMatchesRFC5869TestCase3WithEmptySaltAndInfo() throws {
        let okm = try HKDFSHA256.deriveKey(from: ikm, salt: [], info: [], outputByteCount: 42)
        #expect(
            okm.unprotectedBytes()
                == hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    }

    @Test(arguments: [0, -1, 255 * 32 + 1])
    func deriveKeyRejectsAnImpossibleOutputLength(_ length: Int) {
        #expect(throws: CryptoError.self) {
            try HKDFSHA256.deriveKey(from: ikm, salt: [], info: [], outputByteCount: length)
        }
    }
}
