internal import CTPM
public import ClavisCore

/// An open connection to a TPM 2.0 through tpm2-tss (ESAPI over the TCTI loader), closed in `deinit`.
///
/// Not `Sendable`: a connection serves one operation of one caller (open a keychain, seal its key), then goes.
public final class TPMConnection {
    /// The TCTI string the TPM was reached through, for messages.
    public let tcti: String
    let tpm: OpaquePointer

    /// Connects to the TPM that `tcti` names, in tpm2-tss syntax (`device:/dev/tpmrm0`,
    /// `swtpm:host=127.0.0.1,port=2321`).
    ///
    /// - Throws: `notAvailable` naming the TCTI and tpm2-tss's reason when no TPM answers there, `param` for a TCTI
    ///   string that holds a NUL byte.
    public init(tcti: String) throws(KeychainError) {
        guard !tcti.utf8.contains(0) else { throw KeychainError(.param, "a TPM TCTI string cannot hold a NUL byte") }
        var opened: OpaquePointer?
        let code = TPMResponseCode(rawValue: clavis_tpm_connect(tcti, &opened))
        guard code == .success, let opened else {
            throw KeychainError(.notAvailable, "cannot reach the TPM at \"\(tcti)\": \(code)")
        }
        self.tcti = tcti
        tpm = opened
    }

    deinit { clavis_tpm_close(tpm) }

    /// Runs `body` with the storage primary key (made again from its fixed template), flushed afterwards.
    func withStoragePrimary<Result>(_ body: (UInt32) throws(KeychainError) -> Result) throws(KeychainError) -> Result {
        var primary: UInt32 = 0
        let code = TPMResponseCode(rawValue: clavis_tpm_create_primary(tpm, &primary))
        guard code == .success else {
            throw KeychainError(
                code.isLockout ? .authFailed : .notAvailable,
                "the TPM at \"\(tcti)\" cannot create its storage primary key under the owner hierarchy: \(code)")
        }
        defer { clavis_tpm_flush(tpm, primary) }
        return try body(primary)
    }
}
