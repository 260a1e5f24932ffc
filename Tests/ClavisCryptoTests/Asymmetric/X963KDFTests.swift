import ClavisCore
import ClavisCrypto
import Testing

/// ANSI X9.63 KDF against NIST's CAVS vectors for SP 800-135 (SHA-256, 192-bit Z).
@Suite struct X963KDFTests {
    @Test func derivesNISTVectorWithoutSharedInfo() throws {
        let key = try X963KDF.deriveKey(
            from: secureHex("96c05619d56c328ab95fe84b18264b08725b85e33fd34f08"), sharedInfo: [], digest: .sha256,
            outputByteCount: 16)
        #expect(key.unprotectedBytes() == hex("443024c3dae66b95e6f5670601558f71"))
    }

    @Test func derivesNISTVectorWithSharedInfoOverSeveralBlocks() throws {
        let key = try X963KDF.deriveKey(
            from: secureHex("22518b10e70f2a3f243810ae3254139efbee04aa57c7af7d"),
            sharedInfo: hex("75eef81aa3041e33b80971203d2c0c52"), digest: .sha256, outputByteCount: 128)
        #expect(
            key.unprotectedBytes()
                == hex(
                    """
                    c498af77161cc59f2962b9a713e2b215152d139766ce34a776df11866a69bf2e52a13d9c7c6fc878c50c5ea0bc7b00e0\
                    da2447cfd874f6cf92f30d0097111485500c90c3af8b487872d04685d14c8d1dc8d7fa08beb0ce0ababc11f0bd496269\
                    142d43525a78e5bc79a17f59676a5706dc54d54d4d1f0bd7e386128ec26afc21
                    """))
    }

    @Test func shorterOutputIsPrefixOfLongerOutput() throws {
        let secret = SecureBytes(Array(repeating: 7, count: 32))
        let short = try X963KDF.deriveKey(from: secret, sharedInfo: [1, 2], digest: .sha384, outputByteCount: 16)
        let long = try X963KDF.deriveKey(from: secret, sharedInfo: [1, 2], digest: .sha384, outputByteCount: 32)
        #expect(long.unprotectedBytes().prefix(16) == short.unprotectedBytes()[...])
    }

    @Test func refusesEmptyOutput() {
        #expect(throws: CryptoError.self) {
            try X963KDF.deriveKey(from: SecureBytes([1]), sharedInfo: [], digest: .sha1, outputByteCount: 0)
        }
    }
}
