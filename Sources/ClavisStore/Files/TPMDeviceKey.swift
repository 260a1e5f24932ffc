package import ClavisCore
internal import ClavisSystem
internal import ClavisTPM

/// The device key sealed to a TPM 2.0: 32 random bytes sealed below the TPM's storage primary key (optionally under
/// a policy on PCR values), the sealed object kept in `device.tpm` in place of `device.key`. Only that TPM, with
/// those PCR values, gives the key back, so a copy of the folder opens nowhere else.
package struct TPMDeviceKey: DeviceKeyProvider {
    /// The sealed key's path.
    package let path: String
    /// The TCTI string the TPM is reached through.
    package let tcti: String
    /// The SHA-256 PCRs a new key is sealed to (an existing one keeps those it was sealed to).
    package let pcrs: [Int]
    private let generate: @Sendable () -> SecureBytes

    /// The key is sealed to a TPM.
    package var binding: DeviceKeyBinding { .tpm }

    /// A device key sealed in the file at `path` by the TPM at `tcti`; a new one, made by `generate`, is sealed to
    /// `pcrs`.
    package init(path: String, tcti: String, pcrs: [Int] = [], generate: @escaping @Sendable () -> SecureBytes) {
        self.path = path
        self.tcti = tcti
        self.pcrs = pcrs
        self.generate = generate
    }

    /// Unseals the key, or creates and seals one when allowed and absent.
    ///
    /// - Throws: `invalidKeychain` naming the cause when this TPM cannot unseal it (another TPM sealed it, or the
    ///   PCRs of its policy changed) or the file is missing or malformed; `notAvailable` when the TPM cannot be
    ///   reached; `io` when the file cannot be read or written.
    package func deviceKey(creatingIfMissing: Bool) throws(KeychainError) -> SecureBytes {
        let folder = try KeychainFolder(PathParts(path).folder, creatingIfMissing: creatingIfMissing)
        let name = PathParts(path).name
        if let stored = try folder.readSecret(name, limit: SealedSecret.maximumEncodedCount) {
            return try unseal(stored)
        }
        guard creatingIfMissing else {
            throw KeychainError(
                .invalidKeychain, "sealed device key \(path) is missing; the keychain cannot be opened without it")
        }
        let key = generate()
        guard key.count == DeviceKeyFile.byteCount else {
            throw KeychainError(.invalidKeychain, "a device key is \(DeviceKeyFile.byteCount) bytes")
        }
        let sealed = try explained { () throws(KeychainError) in try TPMConnection(tcti: tcti).seal(key, pcrs: pcrs) }
        if try folder.createSecretFile(name, contents: SecureBytes(sealed.encoded)) { return key }
        // Another process sealed one first: that one is the keychain's.
        guard let stored = try folder.readSecret(name, limit: SealedSecret.maximumEncodedCount) else {
            throw KeychainError(.io, "sealed device key \(path) vanished while it was being created")
        }
        return try unseal(stored)
    }

    private func unseal(_ stored: SecureBytes) throws(KeychainError) -> SecureBytes {
        try explained { () throws(KeychainError) in
            let sealed = try SealedSecret(decoding: stored.unprotectedBytes())
            let key = try TPMConnection(tcti: tcti).unseal(sealed)
            guard key.count == DeviceKeyFile.byteCount else {
                throw KeychainError(.invalidKeychain, "the TPM unsealed \(key.count) bytes, not a 32-byte device key")
            }
            return key
        }
    }

    /// Runs `body`, naming the sealed key's file in the error it throws.
    private func explained<Result>(_ body: () throws(KeychainError) -> Result) throws(KeychainError) -> Result {
        do {
            return try body()
        } catch {
            throw KeychainError(error.code, "sealed device key \(path): \(error.reason)")
        }
    }
}
