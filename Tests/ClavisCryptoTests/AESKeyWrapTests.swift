import ClavisCore
import ClavisCrypto
import Testing

@Suite struct AESKeyWrapTests {
    // RFC 3394 §4.6: wrap 256 bits of key data with a 256-bit KEK.
    let rfc3394KEK = secureHex("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F")
    let rfc3394Key = "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F"
    let rfc3394Wrapped = "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21"

    // RFC 5649 §6: both vectors use this 192-bit KEK (the RFC publishes no 256-bit one).
    let rfc5649KEK = secureHex("5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8")

    @Test func wrapMatchesRFC3394Section4Point6() throws {
        #expect(try AESKeyWrap.wrap(secureHex(rfc3394Key), with: rfc3394KEK) == hex(rfc3394Wrapped))
    }

    @Test func unwrapRecoversRFC3394Section4Point6Key() throws {
        let key = try AESKeyWrap.unwrap(hex(rfc3394Wrapped), with: rfc3394KEK)
        #expect(key.unprotectedBytes() == hex(rfc3394Key))
    }

    @Test func wrapWithPaddingMatchesRFC5649TwentyOctetVector() throws {
        let key = secureHex("c37b7e6492584340bed12207808941155068f738")
        let expected = hex("138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a")
        #expect(try AESKeyWrap.wrapWithPadding(key, with: rfc5649KEK) == expected)
        #expect(
            try AESKeyWrap.unwrapWithPadding(expected, with: rfc5649KEK).unprotectedBytes() == key.unprotectedBytes())
    }

    @Test func wrapWithPaddingMatchesRFC5649SevenOctetVector() throws {
        let key = secureHex("466f7250617369")
        let expected = hex("afbeb0f07dfbf5419200f2ccb50bb24f")
        #expect(try AESKeyWrap.wrapWithPadding(key, with: rfc5649KEK) == expected)
        #expect(
            try AESKeyWrap.unwrapWithPadding(expected, with: rfc5649KEK).unprotectedBytes() == key.unprotectedBytes())
    }

    @Test(arguments: [0, 8, 23, 39])
    func unwrapRejectsAnAlteredByte(at index: Int) throws {
        var wrapped = hex(rfc3394Wrapped)
        wrapped[index] ^= 0x80
        #expect(throws: CryptoError.authenticationFailed) { try AESKeyWrap.unwrap(wrapped, with: rfc3394KEK) }
    }

    @Test func unwrapRejectsTheWrongKEK() throws {
        let otherKEK = SecureRandom.secureBytes(count: 32)
        #expect(throws: CryptoError.authenticationFailed) { try AESKeyWrap.unwrap(hex(rfc3394Wrapped), with: otherKEK) }
    }

    @Test func unwrapWithPaddingRejectsAnAlteredByte() throws {
        let kek = SecureRandom.secureBytes(count: 32)
        var wrapped = try AESKeyWrap.wrapWithPadding(SecureBytes(utf8("a 13-byte key")), with: kek)
        wrapped[wrapped.count - 1] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) { try AESKeyWrap.unwrapWithPadding(wrapped, with: kek) }
    }

    @Test(arguments: [1, 7, 8, 13, 32, 33])
    func wrapWithPaddingRoundTripsUnderA256BitKEK(length: Int) throws {
        let kek = SecureRandom.secureBytes(count: 32)
        let key = SecureRandom.secureBytes(count: length)
        let wrapped = try AESKeyWrap.wrapWithPadding(key, with: kek)
        #expect(wrapped.count == (length + 7) / 8 * 8 + 8)
        #expect(try AESKeyWrap.unwrapWithPadding(wrapped, with: kek).unprotectedBytes() == key.unprotectedBytes())
    }

    @Test func wrapRejectsKeysThatAreNotWholeSemiblocks() {
        #expect(throws: CryptoError.self) {
            try AESKeyWrap.wrap(SecureBytes(utf8("twenty bytes of key!")), with: rfc3394KEK)
        }
        #expect(throws: CryptoError.self) {
            try AESKeyWrap.wrap(SecureBytes(hex("0011223344556677")), with: rfc3394KEK)
        }
    }

    @Test func wrapRejectsAKEKOfTheWrongSize() {
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 20)) {
            try AESKeyWrap.wrap(secureHex(rfc3394Key), with: SecureRandom.secureBytes(count: 20))
        }
    }

    @Test func unwrapRejectsTruncatedInput() {
        #expect(throws: CryptoError.self) {
            try AESKeyWrap.unwrap(Array(hex(rfc3394Wrapped).prefix(16)), with: rfc3394KEK)
        }
        #expect(throws: CryptoError.self) { try AESKeyWrap.unwrapWithPadding([1, 2, 3], with: rfc3394KEK) }
    }
}
