internal import CTPM
public import ClavisCore

extension TPMConnection {
    /// Creates a P-256 key inside the TPM (`TPM2_Create` below the storage primary key); its private scalar never
    /// leaves the TPM in clear.
    ///
    /// - Throws: `notAvailable` when the TPM refuses.
    public func createP256Key() throws(KeychainError) -> TPMKey {
        try withStoragePrimary { primary throws(KeychainError) in
            let capacity = Int(CLAVIS_TPM_BLOB_CAPACITY)
            var publicArea = [UInt8](repeating: 0, count: capacity)
            var privateArea = [UInt8](repeating: 0, count: capacity)
            var publicCount = 0
            var privateCount = 0
            let code = TPMResponseCode(
                rawValue: clavis_tpm_create_p256_key(
                    tpm, primary, &publicArea, &publicCount, &privateArea, &privateCount))
            guard code == .success else {
                throw KeychainError(.notAvailable, "the TPM at \"\(tcti)\" cannot create a P-256 key: \(code)")
            }
            return try TPMKey(
                object: SealedSecret(
                    pcrs: [], publicArea: Array(publicArea.prefix(publicCount)),
                    privateArea: Array(privateArea.prefix(privateCount))))
        }
    }

    /// The digest lengths a TPM-held key signs: SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512, those of Apple's
    /// `ecdsaSignatureDigestX962*` algorithms.
    public static let signableDigestByteCounts: Set<Int> = [20, 28, 32, 48, 64]

    /// Signs `digest` with ECDSA inside the TPM; returns `r ‖ s` (64 bytes).
    ///
    /// The TPM's ECDSA scheme takes a SHA-256-sized digest, and ECDSA signs only a digest's leftmost 256 bits (the
    /// order's length) as an integer, so a longer digest is cut to its first 32 bytes and a shorter one padded with
    /// zeros on the left (the same integer): the signature is what software ECDSA makes over the whole digest.
    ///
    /// - Throws: `param` for a digest of no SHA-1 or SHA-2 length; `invalidKeychain` when this TPM cannot load the
    ///   key (another TPM made it); `notAvailable` when the TPM refuses otherwise.
    public func sign(digest: [UInt8], with key: TPMKey) throws(KeychainError) -> [UInt8] {
        guard Self.signableDigestByteCounts.contains(digest.count) else {
            throw KeychainError(
                .param, "a TPM-held key signs SHA-1 or SHA-2 digests (20 to 64 bytes), not \(digest.count) bytes")
        }
        let digest =
            digest.count >= 32 ? Array(digest.prefix(32)) : [UInt8](repeating: 0, count: 32 - digest.count) + digest
        return try withStoragePrimary { primary throws(KeychainError) in
            var signature = [UInt8](repeating: 0, count: 64)
            let code = TPMResponseCode(
                rawValue: clavis_tpm_p256_sign(
                    tpm, primary, key.object.publicArea, key.object.publicArea.count, key.object.privateArea,
                    key.object.privateArea.count, digest, &signature))
            guard code == .success else { throw keyError(code, doing: "sign") }
            return signature
        }
    }

    /// The ECDH shared secret (the X coordinate, 32 bytes) of `key` and the peer's P-256 point `04 ‖ X ‖ Y`,
    /// computed inside the TPM (`TPM2_ECDH_ZGen`) and returned through an encrypted session.
    ///
    /// - Throws: `param` for a peer that is not an uncompressed P-256 point on the curve; `invalidKeychain` when this
    ///   TPM cannot load the key; `notAvailable` when the TPM refuses otherwise.
    public func sharedSecret(with peer: [UInt8], key: TPMKey) throws(KeychainError) -> SecureBytes {
        guard peer.count == 65, peer.first == 0x04 else {
            throw KeychainError(.param, "the peer key is not an uncompressed P-256 point (04 ‖ X ‖ Y)")
        }
        return try withStoragePrimary { primary throws(KeychainError) in
            var code = TPMResponseCode.success
            let shared = SecureBytes(count: 32) { buffer in
                code = TPMResponseCode(
                    rawValue: clavis_tpm_p256_agree(
                        tpm, primary, key.object.publicArea, key.object.publicArea.count, key.object.privateArea,
                        key.object.privateArea.count, peer, buffer.bindMemory(to: UInt8.self).baseAddress))
            }
            guard code == .success else {
                // TPM_RC_ECC_POINT: the point is not on the curve.
                if code.isFromTPM && code.base == 0x0A7 {
                    throw KeychainError(.param, "the peer key is not a point on P-256")
                }
                throw keyError(code, doing: "agree on a secret")
            }
            return shared
        }
    }

    /// The error for a TPM-held key's operation that failed with `code`.
    private func keyError(_ code: TPMResponseCode, doing operation: String) -> KeychainError {
        if code.isLockout {
            return KeychainError(.authFailed, "the TPM at \"\(tcti)\" is in dictionary-attack lockout: \(code)")
        }
        if code.isFromTPM && [0x09F, 0x095, 0x084].contains(code.base) {
            return KeychainError(
                .invalidKeychain,
                "the TPM at \"\(tcti)\" cannot load the key: another TPM made it, or this TPM's owner hierarchy was "
                    + "cleared since (\(code))")
        }
        return KeychainError(.notAvailable, "the TPM at \"\(tcti)\" cannot \(operation) with the key: \(code)")
    }
}
