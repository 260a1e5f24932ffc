public import ClavisCore
public import ClavisCrypto

/// A device's keys in a sync circle, both EC P-256: one signs every record and circle change the device writes (its
/// public key's SHA-256 is the device's identifier, which records name as their writer), the other receives the sync
/// keys, wrapped to it by the member that approved it.
public struct SyncDeviceKey: @unchecked Sendable {
    /// The signing key (OpenSSL's, immutable once made).
    let signingKey: AsymmetricKey
    /// The key sync keys are wrapped to (ECIES).
    let encryptionKey: AsymmetricKey
    /// The device's identifier: SHA-256 of its signing public key (ANSI X9.63).
    public let identifier: [UInt8]
    /// The signing public key (ANSI X9.63), which the circle lists.
    public let publicKey: [UInt8]
    /// The encryption public key (ANSI X9.63), which the circle lists.
    public let encryptionPublicKey: [UInt8]

    /// The device key with these private keys (P-256).
    ///
    /// - Throws: `param` for a key that is not a private P-256 key.
    public init(signingKey: AsymmetricKey, encryptionKey: AsymmetricKey) throws(KeychainError) {
        for key in [signingKey, encryptionKey] where !key.isPrivate || key.blockByteCount != 32 {
            throw KeychainError(.param, "a sync device key is a private EC P-256 key")
        }
        do throws(CryptoError) {
            publicKey = try signingKey.publicRepresentation()
            encryptionPublicKey = try encryptionKey.publicRepresentation()
        } catch {
            throw KeychainError(.param, "the device key's public key could not be read")
        }
        self.signingKey = signingKey
        self.encryptionKey = encryptionKey
        identifier = SHA256.hash(publicKey)
    }

    /// Both private keys (X9.63), signing key first: what the recovery key seals of the recovery member.
    var privateKeys: SecureBytes {
        get throws(KeychainError) {
            do throws(CryptoError) {
                return try signingKey.privateRepresentation().appending(encryptionKey.privateRepresentation())
            } catch {
                throw KeychainError(.internal, "the device's private keys could not be exported")
            }
        }
    }

    /// The device whose private keys `privateKeys` gave.
    ///
    /// - Throws: `decode` for bytes that are not two P-256 private keys.
    init(privateKeys: SecureBytes) throws(KeychainError) {
        let keys = try privateKeys.withTemporaryArray {
            (bytes) throws(KeychainError) -> (AsymmetricKey, AsymmetricKey) in
            guard bytes.count == 2 * 97 else { throw KeychainError(.decode, "not two P-256 private keys") }
            do throws(CryptoError) {
                return (
                    try AsymmetricKey.ellipticCurve(x963: SecureBytes(bytes[..<97]), isPrivate: true),
                    try AsymmetricKey.ellipticCurve(x963: SecureBytes(bytes[97...]), isPrivate: true)
                )
            } catch {
                throw KeychainError(.decode, "not two P-256 private keys")
            }
        }
        try self.init(signingKey: keys.0, encryptionKey: keys.1)
    }

    /// New device keys.
    public static func generate() throws(KeychainError) -> SyncDeviceKey {
        let keys: (AsymmetricKey, AsymmetricKey)
        do throws(CryptoError) {
            keys = (try AsymmetricKey.generate(curve: .p256), try AsymmetricKey.generate(curve: .p256))
        } catch {
            throw KeychainError(.internal, "a device key could not be generated")
        }
        return try SyncDeviceKey(signingKey: keys.0, encryptionKey: keys.1)
    }

    /// An ECDSA signature (DER) over SHA-256 of `message`.
    func sign(_ message: [UInt8]) throws(KeychainError) -> [UInt8] {
        try Self.sign(message, with: signingKey)
    }

    /// An ECDSA signature (DER) by `key` over SHA-256 of `message`.
    static func sign(_ message: [UInt8], with key: AsymmetricKey) throws(KeychainError) -> [UInt8] {
        do throws(CryptoError) {
            return try key.sign(digest: SHA256.hash(message), algorithm: nil, padding: .ecdsa)
        } catch {
            throw KeychainError(.internal, "the key could not sign")
        }
    }

    /// True when `signature` is the signature of the key whose public key is `publicKey` (X9.63) over `message`.
    static func verify(_ signature: [UInt8], over message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? AsymmetricKey.ellipticCurve(x963: SecureBytes(publicKey), isPrivate: false) else {
            return false
        }
        return (try? key.verify(signature: signature, digest: SHA256.hash(message), algorithm: nil, padding: .ecdsa))
            ?? false
    }

    /// `secret` sealed to the device whose encryption public key is `recipient` (Apple's ECIES, X9.63 SHA-256,
    /// variable IV).
    static func seal(_ secret: SecureBytes, to recipient: [UInt8]) throws(KeychainError) -> [UInt8] {
        do throws(CryptoError) {
            let key = try AsymmetricKey.ellipticCurve(x963: SecureBytes(recipient), isPrivate: false)
            return try AppleECIES.seal(secret, to: key, digest: .sha256, variableIV: true)
        } catch {
            throw KeychainError(.param, "the device's encryption key is not a P-256 public key")
        }
    }

    /// What `seal` sealed to this device.
    ///
    /// - Throws: `decode` when it was sealed to another device or changed.
    func open(_ sealed: [UInt8]) throws(KeychainError) -> SecureBytes {
        do throws(CryptoError) {
            return try AppleECIES.open(sealed, with: encryptionKey, digest: .sha256, variableIV: true)
        } catch {
            throw KeychainError(.decode, "the sync keys were not sealed to this device, or were changed")
        }
    }
}
