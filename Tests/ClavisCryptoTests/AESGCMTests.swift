import ClavisCore
import ClavisCrypto
import Testing

/// AES-256 test cases 13–16 of McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", as adopted by
/// NIST SP 800-38D.
struct GCMVector: Sendable, CustomTestStringConvertible {
    let name: String
    let key: String
    let nonce: String
    let plaintext: String
    let aad: String
    let ciphertext: String
    let tag: String

    var testDescription: String { name }

    static let zeroKey = String(repeating: "00", count: 32)
    static let feffKey = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let longPlaintext = """
        d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
        1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255
        """
    static let longCiphertext = """
        522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
        8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad
        """

    static let all: [GCMVector] = [
        GCMVector(
            name: "test case 13", key: zeroKey, nonce: "000000000000000000000000", plaintext: "", aad: "",
            ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        GCMVector(
            name: "test case 14", key: zeroKey, nonce: "000000000000000000000000",
            plaintext: "00000000000000000000000000000000", aad: "",
            ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        GCMVector(
            name: "test case 15", key: feffKey, nonce: "cafebabefacedbaddecaf888", plaintext: longPlaintext, aad: "",
            ciphertext: longCiphertext, tag: "b094dac5d93471bdec1a502270e3cc6c"),
        GCMVector(
            name: "test case 16", key: feffKey, nonce: "cafebabefacedbaddecaf888",
            plaintext: String(longPlaintext.prefix(120)), aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            ciphertext: String(longCiphertext.prefix(120)), tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]
}

@Suite struct AESGCMTests {
    let key = SecureRandom.secureBytes(count: AESGCM.keyByteCount)
    let message = SecureBytes(utf8("attack at dawn"))
    let aad = utf8("item:42")

    @Test(arguments: GCMVector.all)
    func sealWithChosenNonceMatchesPublishedVector(_ vector: GCMVector) throws {
        let sealed = try AESGCM.seal(
            secureHex(vector.plaintext), key: secureHex(vector.key), nonce: hex(vector.nonce),
            authenticating: hex(vector.aad))
        #expect(sealed == hex(vector.nonce) + hex(vector.ciphertext) + hex(vector.tag))
    }

    @Test(arguments: GCMVector.all)
    func openRecoversPublishedPlaintext(_ vector: GCMVector) throws {
        let opened = try AESGCM.open(
            hex(vector.nonce) + hex(vector.ciphertext) + hex(vector.tag), key: secureHex(vector.key),
            authenticating: hex(vector.aad))
        #expect(opened.unprotectedBytes() == hex(vector.plaintext))
    }

    @Test func sealThenOpenRoundTripsUnderRandomNonce() throws {
        let sealed = try AESGCM.seal(message, key: key, authenticating: aad)
        #expect(sealed.count == AESGCM.nonceByteCount + message.count + AESGCM.tagByteCount)
        #expect(try AESGCM.open(sealed, key: key, authenticating: aad).unprotectedBytes() == utf8("attack at dawn"))
    }

    @Test func sealingTwiceUsesDifferentNonces() throws {
        let first = try AESGCM.seal(message, key: key, authenticating: aad)
        let second = try AESGCM.seal(message, key: key, authenticating: aad)
        #expect(first.prefix(AESGCM.nonceByteCount) != second.prefix(AESGCM.nonceByteCount))
    }

    @Test(arguments: ["nonce", "ciphertext", "tag"])
    func openRejectsAFlippedByte(in region: String) throws {
        var sealed = try AESGCM.seal(message, key: key, authenticating: aad)
        let index =
            switch region {
            case "nonce": 3
            case "ciphertext": AESGCM.nonceByteCount + 5
            default: sealed.count - 1
            }
        sealed[index] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(sealed, key: key, authenticating: aad) }
    }

    @Test func openRejectsDifferentAssociatedData() throws {
        let sealed = try AESGCM.seal(message, key: key, authenticating: aad)
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(sealed, key: key, authenticating: utf8("item:43"))
        }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(sealed, key: key, authenticating: []) }
    }

    @Test func openRejectsTheWrongKey() throws {
        let sealed = try AESGCM.seal(message, key: key, authenticating: aad)
        let otherKey = SecureRandom.secureBytes(count: AESGCM.keyByteCount)
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(sealed, key: otherKey, authenticating: aad)
        }
    }

    @Test func openRejectsInputShorterThanNonceAndTag() {
        #expect(throws: CryptoError.invalidInput("AES-GCM box must hold at least 28 bytes, got 27")) {
            try AESGCM.open([UInt8](repeating: 0, count: 27), key: key, authenticating: [])
        }
    }

    @Test func sealRejectsAKeyOfTheWrongSize() {
        #expect(throws: CryptoError.invalidKeySize(expected: 32, actual: 16)) {
            try AESGCM.seal(message, key: SecureRandom.secureBytes(count: 16), authenticating: [])
        }
    }

    @Test func sealRejectsANonceOfTheWrongSize() {
        #expect(throws: CryptoError.self) {
            try AESGCM.seal(message, key: key, nonce: [UInt8](repeating: 0, count: 8), authenticating: [])
        }
    }
}
