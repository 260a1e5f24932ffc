internal import CTPM
public import ClavisCore

extension TPMConnection {
    /// Extends SHA-256 PCR `index` (0 to 23) with the 32-byte `digest`: what a boot loader does when it measures
    /// what it starts, and how tests change a PCR that a keychain's device key is sealed to.
    ///
    /// - Throws: `param` for an index outside 0 to 23 or a digest that is not 32 bytes, `notAvailable` when the TPM
    ///   refuses (PCRs above 15 may be reserved to another locality).
    public func extendPCR(_ index: Int, with digest: [UInt8]) throws(KeychainError) {
        guard (0...23).contains(index), digest.count == 32 else {
            throw KeychainError(.param, "a PCR extension takes a PCR from 0 to 23 and a 32-byte SHA-256 digest")
        }
        let code = TPMResponseCode(rawValue: clavis_tpm_extend_pcr(tpm, UInt32(index), digest))
        guard code == .success else {
            throw KeychainError(.notAvailable, "the TPM at \"\(tcti)\" cannot extend PCR \(index): \(code)")
        }
    }
}
