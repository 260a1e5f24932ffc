internal import CTPM
public import ClavisCore

extension TPMConnection {
    /// The most bytes `seal` accepts.
    public static let sealableByteCount = Int(CLAVIS_TPM_SECRET_CAPACITY)

    /// Seals `secret` (1 to 128 bytes) to this TPM below its storage primary key; with `pcrs`, only while those
    /// SHA-256 PCRs hold the values they hold now. The secret reaches the TPM through an encrypted session.
    ///
    /// - Throws: `param` for an empty or oversized secret or a PCR outside 0 to 23, `notAvailable` when the TPM
    ///   refuses.
    public func seal(_ secret: SecureBytes, pcrs: [Int]) throws(KeychainError) -> SealedSecret {
        guard (1...Self.sealableByteCount).contains(secret.count) else {
            throw KeychainError(.param, "a TPM seals 1 to \(Self.sealableByteCount) bytes, not \(secret.count)")
        }
        guard pcrs.allSatisfy({ (0...23).contains($0) }) else {
            throw KeychainError(.param, "a PCR policy names SHA-256 PCRs 0 to 23 only")
        }
        let pcrs = Array(Set(pcrs)).sorted()
        let mask = pcrs.reduce(UInt32(0)) { $0 | 1 << UInt32($1) }
        return try withStoragePrimary { primary throws(KeychainError) in
            let capacity = Int(CLAVIS_TPM_BLOB_CAPACITY)
            var publicArea = [UInt8](repeating: 0, count: capacity)
            var privateArea = [UInt8](repeating: 0, count: capacity)
            var publicCount = 0
            var privateCount = 0
            let code = secret.withUnsafeBytes { bytes in
                TPMResponseCode(
                    rawValue: clavis_tpm_seal(
                        tpm, primary, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, mask, &publicArea,
                        &publicCount, &privateArea, &privateCount))
            }
            guard code == .success else {
                throw KeychainError(
                    code.isLockout ? .authFailed : .notAvailable, "the TPM at \"\(tcti)\" cannot seal a key: \(code)")
            }
            return SealedSecret(
                pcrs: pcrs, publicArea: Array(publicArea.prefix(publicCount)),
                privateArea: Array(privateArea.prefix(privateCount)))
        }
    }

    /// Unseals `sealed` on this TPM, through its PCR policy when it has one; the secret comes back through an
    /// encrypted session.
    ///
    /// - Throws: `invalidKeychain` naming the cause when this TPM cannot unseal it: another TPM sealed it (or this
    ///   one's owner hierarchy was cleared since), or the PCRs of its policy changed since it was sealed;
    ///   `authFailed` during the TPM's dictionary-attack lockout; `notAvailable` when the TPM fails otherwise.
    public func unseal(_ sealed: SealedSecret) throws(KeychainError) -> SecureBytes {
        try withStoragePrimary { primary throws(KeychainError) in
            var stage: Int32 = 0
            var count = 0
            var failure = TPMResponseCode.success
            let secret = SecureBytes(count: Self.sealableByteCount) { buffer in
                failure = TPMResponseCode(
                    rawValue: clavis_tpm_unseal(
                        tpm, primary, sealed.publicArea, sealed.publicArea.count, sealed.privateArea,
                        sealed.privateArea.count, sealed.pcrMask, buffer.bindMemory(to: UInt8.self).baseAddress,
                        &count, &stage))
            }
            guard failure == .success else { throw unsealError(failure, stage: stage, pcrs: sealed.pcrs) }
            return secret.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
    }

    /// The error naming why `unseal` failed at `stage`.
    private func unsealError(_ code: TPMResponseCode, stage: Int32, pcrs: [Int]) -> KeychainError {
        let policy = "PCR " + pcrs.map(String.init).joined(separator: ",")
        if code.isLockout {
            return KeychainError(
                .authFailed, "the TPM at \"\(tcti)\" is in dictionary-attack lockout and refuses to unseal: \(code)")
        }
        switch Int(stage) {
        case CLAVIS_TPM_STAGE_READ:
            return KeychainError(.invalidKeychain, "the sealed key is malformed: \(code)")
        case CLAVIS_TPM_STAGE_LOAD where code.isFromTPM:
            return KeychainError(
                .invalidKeychain,
                "the TPM at \"\(tcti)\" cannot load the sealed key: it was sealed by another TPM, or this TPM's owner "
                    + "hierarchy was cleared since (\(code))")
        case CLAVIS_TPM_STAGE_POLICY, CLAVIS_TPM_STAGE_UNSEAL:
            if code.isPolicyFailure || (!pcrs.isEmpty && code.isFromTPM) {
                return KeychainError(
                    .invalidKeychain,
                    "the TPM at \"\(tcti)\" refuses to unseal the key: the values of \(policy) changed since it was "
                        + "sealed (the boot chain or measured software changed) (\(code))")
            }
            fallthrough
        default:
            return KeychainError(.notAvailable, "the TPM at \"\(tcti)\" cannot unseal the key: \(code)")
        }
    }
}
