internal import CTPM
public import ClavisCore

extension TPMConnection {
    /// Creates a monotonic counter in the TPM's NV memory at a free index of the owner's range, counted once (a
    /// counter starts at the highest value any counter of this TPM ever held, never below). Returns its index and
    /// value.
    ///
    /// - Throws: `notAvailable` when the TPM refuses (NV memory full, an owner password set).
    public func createCounter() throws(KeychainError) -> (index: UInt32, value: UInt64) {
        for _ in 0..<16 {
            let index = 0x0180_0000 + UInt32.random(in: 0...0x3F_FFFF)
            let code = TPMResponseCode(rawValue: clavis_tpm_counter_define(tpm, index))
            // TPM_RC_NV_DEFINED: taken, try another.
            if code.isFromTPM && code.base == 0x14C { continue }
            guard code == .success else {
                throw KeychainError(.notAvailable, "the TPM at \"\(tcti)\" cannot define an NV counter: \(code)")
            }
            return (index, try counterValue(index))
        }
        throw KeychainError(.notAvailable, "the TPM at \"\(tcti)\" has no free NV index for a counter")
    }

    /// The value of the counter at NV index `index`.
    ///
    /// - Throws: `invalidKeychain` when there is no counter there (another TPM, or it was undefined);
    ///   `notAvailable` when the TPM refuses otherwise.
    public func counterValue(_ index: UInt32) throws(KeychainError) -> UInt64 {
        var value: UInt64 = 0
        let code = TPMResponseCode(rawValue: clavis_tpm_counter_read(tpm, index, &value))
        guard code == .success else { throw counterError(code, index) }
        return value
    }

    /// Increments the counter at NV index `index` by one.
    public func incrementCounter(_ index: UInt32) throws(KeychainError) {
        let code = TPMResponseCode(rawValue: clavis_tpm_counter_increment(tpm, index))
        guard code == .success else { throw counterError(code, index) }
    }

    private func counterError(_ code: TPMResponseCode, _ index: UInt32) -> KeychainError {
        let name = "NV counter 0x\(String(index, radix: 16))"
        // TPM_RC_HANDLE for an index the TPM does not know.
        if code.isFromTPM && code.base == 0x08B || !code.isFromTPM && (code.rawValue & 0xFFFF) == 0x08B {
            return KeychainError(
                .invalidKeychain, "the TPM at \"\(tcti)\" has no \(name): another TPM, or it was removed")
        }
        return KeychainError(.notAvailable, "the TPM at \"\(tcti)\" cannot use \(name): \(code)")
    }
}
