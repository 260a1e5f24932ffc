public import ClavisCore
public import ClavisCrypto

/// A device's signing key in a sync circle (EC P-256): it signs every record and circle change the device writes,
/// and its public key's SHA-256 is the device's identifier, which the records name as their writer.
public struct SyncDeviceKey: @unchecked Sendable {
    /// The private key (OpenSSL's, immutable once made).
    let privateKey: AsymmetricKey
    /// The device's identifier: SHA-256 of its public key (ANSI X9.63).
    public let identifier: [UInt8]
    /// The public key (ANSI X9.63), which the circle lists.
    public let publicKey: [UInt8]

    /// The device key with private key `privateKey` (P-256).
    ///
    /// - Throws: `param` for a key that is not a private P-256 key.
    public init(privateKey: AsymmetricKey) throws(KeychainError) {
        guard privateKey.isPrivate, privateKey.blockByteCount == 32 else {
            throw KeychainError(.param, "a sync device key is a private EC P-256 key")
        }
        do throws(CryptoError) {
            publicKey = try privateKey.publicRepresentation()
        } catch {
            throw KeychainError(.param, "the device key's public key could not be read")
        }
        self.privateKey = privateKey
        identifier = SHA256.hash(publicKey)
    }

    /// A new device key.
    public static func generate() throws(KeychainError) -> SyncDeviceKey {
        let privateKey: AsymmetricKey
        do throws(CryptoError) {
            privateKey = try AsymmetricKey.generate(curve: .p256)
        } catch {
            throw KeychainError(.internal, "a device key could not be generated")
        }
        return try SyncDeviceKey(privateKey: privateKey)
    }

    /// An ECDSA signature (DER) over SHA-256 of `message`.
    func sign(_ message: [UInt8]) throws(KeychainError) -> [UInt8] {
        do throws(CryptoError) {
            return try privateKey.sign(digest: SHA256.hash(message), algorithm: nil, padding: .ecdsa)
        } catch {
            throw KeychainError(.internal, "the device key could not sign")
        }
    }

    /// True when `signature` is the signature of the device whose public key is `publicKey` (X9.63) over `message`.
    static func verify(_ signature: [UInt8], over message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let key = try? AsymmetricKey.ellipticCurve(x963: SecureBytes(publicKey), isPrivate: false) else {
            return false
        }
        return (try? key.verify(signature: signature, digest: SHA256.hash(message), algorithm: nil, padding: .ecdsa))
            ?? false
    }
}
