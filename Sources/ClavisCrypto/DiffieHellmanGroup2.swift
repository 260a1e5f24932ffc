internal import COpenSSL
public import ClavisCore

/// Diffie-Hellman over the 1024-bit MODP group of RFC 2409 (the "Second Oakley Group", generator 2), as the Secret
/// Service's `dh-ietf1024-sha256-aes128-cbc-pkcs7` session uses it. Weak by today's measure; the Secret Service
/// asks for nothing stronger, and its transport is a local bus.
public struct DiffieHellmanGroup2: Sendable {
    /// The length of the prime, and of public keys and shared secrets, in bytes.
    public static let byteCount = 128

    /// The group's prime, big-endian (RFC 2409 section 6.2).
    static let prime: [UInt8] = hexBytes(
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
            + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
            + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF")

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
        let significant = Array(peerPublicKey.drop { $0 == 0 })
        guard significant.count <= Self.byteCount else { throw .invalidInput("the DH public key is too long") }
        let padded = [UInt8](repeating: 0, count: Self.byteCount - significant.count) + significant
        var largestAllowed = Self.prime
        largestAllowed[Self.byteCount - 1] -= 2
        guard padded.lexicographicallyPrecedes(largestAllowed) || padded == largestAllowed,
            significant.count > 1 || (significant.first ?? 0) >= 2
        else {
            throw .invalidInput("the DH public key is outside the group")
        }
        return try Self.power(padded, privateKey)
    }

    /// base^exponent mod p.
    private static func power(_ base: [UInt8], _ exponent: SecureBytes) throws(CryptoError) -> SecureBytes {
        try SecureBytes.filling(count: byteCount) { output throws(CryptoError) in
            try base.withBytes { basePointer, baseCount throws(CryptoError) in
                try exponent.withBytes { exponentPointer, exponentCount throws(CryptoError) in
                    try prime.withBytes { primePointer, primeCount throws(CryptoError) in
                        guard
                            clavis_mod_exp(
                                basePointer, baseCount, exponentPointer, exponentCount, primePointer, primeCount,
                                output) == 1
                        else { throw OpenSSLStatus.failure("BN_mod_exp") }
                    }
                }
            }
        }
    }

    private static func hexBytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
