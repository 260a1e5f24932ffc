public import ClavisCore

/// Apple's RSA-OAEP with AES-GCM (`SecKeyAlgorithm.rsaEncryptionOAEPSHA…AESGCM`), as Security's SecKeyAdaptors
/// does it: a random AES session key (16 bytes under keys below 4096 bits, 32 bytes from 4096) wrapped with
/// RSA-OAEP, then AES-GCM under an all-zero 16-byte IV with the public key's PKCS#1 DER as associated data;
/// output: wrapped key ‖ ciphertext ‖ 16-byte tag.
public enum AppleRSAHybrid {
    /// The GCM tag's length.
    public static let tagByteCount = 16
    private static let iv = [UInt8](repeating: 0, count: 16)

    /// The session key length Apple uses under an RSA key of `bits` bits.
    public static func sessionKeyByteCount(bits: Int) -> Int { bits >= 4096 ? 32 : 16 }

    /// Encrypts `plaintext` to the RSA public key `recipient`.
    public static func seal(_ plaintext: SecureBytes, to recipient: AsymmetricKey, digest: DigestAlgorithm)
        throws(CryptoError) -> [UInt8]
    {
        guard case .rsa(let bits) = recipient.kind else { throw .invalidInput("RSA-OAEP needs an RSA key") }
        let sessionKey = SecureRandom.secureBytes(count: sessionKeyByteCount(bits: bits))
        let wrapped = try recipient.encrypt(sessionKey, padding: .oaep(digest))
        let aad = try recipient.publicRepresentation()
        return try wrapped + AESGCM.encrypt(plaintext, key: sessionKey, iv: iv, authenticating: aad)
    }

    /// Decrypts what `seal` made, with the private key `recipient`.
    public static func open(_ sealed: [UInt8], with recipient: AsymmetricKey, digest: DigestAlgorithm)
        throws(CryptoError) -> SecureBytes
    {
        guard case .rsa(let bits) = recipient.kind, recipient.isPrivate else {
            throw .invalidInput("RSA-OAEP decryption needs a private RSA key")
        }
        let block = recipient.blockByteCount
        guard sealed.count >= block + tagByteCount else { throw .invalidInput("RSA-OAEP AES-GCM input too short") }
        let sessionKey = try recipient.decrypt(Array(sealed.prefix(block)), padding: .oaep(digest))
        guard sessionKey.count == sessionKeyByteCount(bits: bits) else {
            throw .invalidInput("unexpected session key size")
        }
        let aad = try recipient.publicRepresentation()
        return try AESGCM.decrypt(Array(sealed.dropFirst(block)), key: sessionKey, iv: iv, authenticating: aad)
    }
}
