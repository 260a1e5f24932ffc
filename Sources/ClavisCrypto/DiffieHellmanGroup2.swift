internal import COpenSSL
public import ClavisCore

/// Diffie-Hellman over the 1024-bit MODP group of RFC 2409 (the "Second Oakley Group", generator 2), as the Secret
/// Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session uses it. Weak by today's measure; the Secret Service
/// asks for nothing stronger, and its transport is a local bus.
public struct DiffieHellmanGroup2: Sendable {
    /// The length of the prime, and of public keys and shared secrets, in bytes.
    public static let byteCount = 128

    /// The private exponent.
    private let privateKey: SecureBytes
    /// g^x mod p, big-endian, `byteCount` bytes.
    public let publicKey: [UInt8]

    /// A new key pair: a random 256-bit private exponent (twice the group's strength of about 80 bits).
    public init() throws(CryptoError) {
        try self.init(privateKey: SecureRandom.secureBytes(count: 32))
    }

    /// The key pair of a chosen private exponent (big-endian), for test vectors.
    public init(privateKey: SecureBytes) throws(CryptoError) {
        self.privateKey = privateKey
        publicKey = try Self.power([2], privateKey).withUnsafeBytes { Array($0) }
    }

    /// The shared secret with the peer whose public key is `peerPublicKey` (big-endian, any length), left-padded to
    /// `byteCount` bytes.
    ///
    /// - Throws: `invalidInput` for a key outside 2...p-2, which would make the secret predictable.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> SecureBytes {
        try Self.power(peerPublicKey, privateKey)
    }

    /// base^exponent mod p.
    private static func power(_ base: [UInt8], _ exponent: SecureBytes) throws(CryptoError) -> SecureBytes {
        try SecureBytes.filling(count: byteCount) { output throws(CryptoError) in
            try base.withBytes { basePointer, baseCount throws(CryptoError) in
                try exponent.withBytes { exponentPointer, exponentCount throws(CryptoError) in
                    switch clavis_modp1024_power(basePointer, baseCount, exponentPointer, exponentCount, output) {
                    case 1: return
                    case -1: throw OpenSSLStatus.cleared(.invalidInput("the DH public key is outside the group"))
                    default: throw OpenSSLStatus.failure("BN_mod_exp")
                    }
                }
            }
        }
    }
}
