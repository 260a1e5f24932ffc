import ClavisCore
import ClavisCrypto
import ClavisTPM

/// Keys the service holds, in the TPM when the keychain is bound to one: created there (`TPM2_Create`), stored as
/// the TPM's object (its private part encrypted by the TPM) in place of a private key, used there. The private
/// scalar never exists outside the TPM, so not even this process can hand it out.
extension EmbeddedKeychainService {
    /// A new P-256 key for the token: in the keychain's TPM when it has one, else in software. Returns its public
    /// key and what the item keeps as its secret (the TPM's object, or the private key's X9.63 bytes).
    func generateHeldKey() throws(KeychainError) -> (publicBytes: [UInt8], secret: SecureBytes) {
        if let tcti = keychain.tpmTCTI {
            let key = try TPMConnection(tcti: tcti).createP256Key()
            return (key.publicKey, SecureBytes(key.wrapped))
        }
        do throws(CryptoError) {
            let key = try AsymmetricKey.generate(curve: .p256)
            return (try key.publicRepresentation(), try key.privateRepresentation())
        } catch {
            throw KeychainError(.internal, "the key could not be generated")
        }
    }

    /// Runs `use` with the TPM-held key whose object `secret` holds, in the keychain's TPM: a DER ECDSA signature,
    /// or the ECDH shared secret.
    ///
    /// - Throws: `notAvailable` when this keychain has no TPM (the item was copied from a TPM-bound one) or the TPM
    ///   cannot be reached; `param` for an input the TPM refuses (a digest that is not 32 bytes, a point off the
    ///   curve); `invalidKeychain` when another TPM made the key.
    func useTPMKey(_ secret: SecureBytes, for use: KeyUse) throws(KeychainError) -> SecureBytes {
        guard let tcti = keychain.tpmTCTI else {
            throw KeychainError(.notAvailable, "the key is held by a TPM, and this keychain is not bound to one")
        }
        let key = try TPMKey(wrapped: secret.unprotectedBytes())
        let connection = try TPMConnection(tcti: tcti)
        switch use {
        case .signDigest(let digest):
            let raw = try connection.sign(digest: digest, with: key)
            do throws(CryptoError) {
                return SecureBytes(try ECDSASignature.der(fromRaw: raw, curve: .p256))
            } catch {
                throw KeychainError(.internal, "the TPM's signature could not be encoded")
            }
        case .agree(let peer):
            return try connection.sharedSecret(with: peer, key: key)
        }
    }

    /// The public key of a held key's stored secret, whichever holds it; `nil` when the secret is neither.
    static func heldKeyPublicBytes(_ secret: SecureBytes) -> [UInt8]? {
        let bytes = secret.unprotectedBytes()
        if TPMKey.isWrapped(bytes) { return try? TPMKey(wrapped: bytes).publicKey }
        return try? AsymmetricKey.ellipticCurve(x963: secret, isPrivate: true).publicRepresentation()
    }
}
