public import ClavisCore

/// Apple's ECIES (`SecKeyAlgorithm.eciesEncryption{Standard,Cofactor}{,VariableIV}X963SHA…AESGCM`), byte for byte
/// as Security's SecKeyAdaptors does it:
///
/// 1. a fresh ephemeral key on the recipient's curve; Z = ECDH(ephemeral private, recipient public);
/// 2. X9.63 KDF over Z with the ephemeral public key (`04 ‖ X ‖ Y`) as SharedInfo, giving an AES key of 16 bytes
///    for curves up to 256 bits and 32 bytes above; the variable-IV variants ask the KDF for 16 more bytes, which
///    are the GCM IV, while the others use an all-zero 16-byte IV;
/// 3. AES-GCM with no associated data and a 16-byte tag;
/// 4. output: ephemeral public key ‖ ciphertext ‖ tag.
///
/// Cofactor ECDH equals standard ECDH on these curves (cofactor 1), so the Cofactor variants share this code.
public enum AppleECIES {
    /// The GCM IV's length (Apple's `kSecKeyIESIV`).
    public static let ivByteCount = 16
    /// The GCM tag's length.
    public static let tagByteCount = 16

    /// The AES key length Apple uses on `curve`.
    public static func aesKeyByteCount(for curve: EllipticCurve) -> Int { curve.bitCount > 256 ? 32 : 16 }

    /// Encrypts `plaintext` to `recipient`'s public key.
    public static func seal(
        _ plaintext: SecureBytes, to recipient: AsymmetricKey, digest: DigestAlgorithm, variableIV: Bool
    ) throws(CryptoError) -> [UInt8] {
        guard case .ellipticCurve(let curve) = recipient.kind else { throw .invalidInput("ECIES needs an EC key") }
        let ephemeral = try AsymmetricKey.generate(curve: curve)
        let ephemeralPoint = try ephemeral.publicRepresentation()
        let secret = try ephemeral.sharedSecret(with: recipient.publicKey(), cofactor: false)
        let (key, iv) = try derive(secret, ephemeralPoint: ephemeralPoint, curve: curve, digest: digest, variableIV)
        return try ephemeralPoint + AESGCM.encrypt(plaintext, key: key, iv: iv, authenticating: [])
    }

    /// Decrypts what `seal` made for `recipient`'s public key, with `recipient`'s private key.
    public static func open(
        _ sealed: [UInt8], with recipient: AsymmetricKey, digest: DigestAlgorithm, variableIV: Bool
    ) throws(CryptoError) -> SecureBytes {
        guard case .ellipticCurve(let curve) = recipient.kind, recipient.isPrivate else {
            throw .invalidInput("ECIES decryption needs a private EC key")
        }
        guard sealed.count >= curve.pointByteCount + tagByteCount else {
            throw .invalidInput("ECIES input of \(sealed.count) bytes is too short")
        }
        let ephemeralPoint = Array(sealed.prefix(curve.pointByteCount))
        let ephemeral = try AsymmetricKey.ellipticCurve(x963: SecureBytes(ephemeralPoint), isPrivate: false)
        let secret = try recipient.sharedSecret(with: ephemeral, cofactor: false)
        let (key, iv) = try derive(secret, ephemeralPoint: ephemeralPoint, curve: curve, digest: digest, variableIV)
        return try AESGCM.decrypt(
            Array(sealed.dropFirst(curve.pointByteCount)), key: key, iv: iv, authenticating: [])
    }

    /// Decrypts what `seal` made for a recipient on `curve` whose private key is elsewhere: `agree` computes the
    /// ECDH secret of that private key with the ephemeral public key it is given.
    public static func open(
        _ sealed: [UInt8], curve: EllipticCurve, digest: DigestAlgorithm, variableIV: Bool,
        agree: (AsymmetricKey) throws(CryptoError) -> SecureBytes
    ) throws(CryptoError) -> SecureBytes {
        guard sealed.count >= curve.pointByteCount + tagByteCount else {
            throw .invalidInput("ECIES input of \(sealed.count) bytes is too short")
        }
        let ephemeralPoint = Array(sealed.prefix(curve.pointByteCount))
        let ephemeral = try AsymmetricKey.ellipticCurve(x963: SecureBytes(ephemeralPoint), isPrivate: false)
        let secret = try agree(ephemeral)
        let (key, iv) = try derive(secret, ephemeralPoint: ephemeralPoint, curve: curve, digest: digest, variableIV)
        return try AESGCM.decrypt(
            Array(sealed.dropFirst(curve.pointByteCount)), key: key, iv: iv, authenticating: [])
    }

    private static func derive(
        _ secret: SecureBytes, ephemeralPoint: [UInt8], curve: EllipticCurve, digest: DigestAlgorithm,
        _ variableIV: Bool
    ) throws(CryptoError) -> (SecureBytes, [UInt8]) {
        let keyByteCount = aesKeyByteCount(for: curve)
        let material = try X963KDF.deriveKey(
            from: secret, sharedInfo: ephemeralPoint, digest: digest,
            outputByteCount: keyByteCount + (variableIV ? ivByteCount : 0))
        guard variableIV else { return (material, [UInt8](repeating: 0, count: ivByteCount)) }
        // The IV is not secret (it is derived, not sent); only the key stays in a zeroing buffer.
        let iv = material.withUnsafeBytes { Array($0[keyByteCount...]) }
        return (material.prefix(keyByteCount), iv)
    }
}
