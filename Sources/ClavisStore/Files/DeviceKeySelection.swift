package import ClavisCore
internal import ClavisCrypto

/// Chooses the device key of a keychain folder: the one its files record (`device.tpm` for a TPM-sealed key,
/// `device.key` for a file), or for a keychain not created yet the binding `options` asks for.
package enum DeviceKeySelection {
    /// The provider and binding of the keychain in `home`.
    ///
    /// - Throws: `invalidKeychain` when the folder holds both a sealed and a file device key (which one is the
    ///   keychain's cannot be told).
    package static func provider(for home: KeychainHome, options: DeviceKeyOptions) throws(KeychainError) -> (
        any DeviceKeyProvider, DeviceKeyBinding
    ) {
        let binding = try recordedBinding(in: home) ?? options.binding
        let generate: @Sendable () -> SecureBytes = { SecureRandom.secureBytes(count: DeviceKeyFile.byteCount) }
        switch binding {
        case .file:
            return (DeviceKeyFile(path: home.deviceKeyPath, generate: generate), .file)
        case .tpm:
            let provider = TPMDeviceKey(
                path: home.sealedDeviceKeyPath, tcti: options.tcti, pcrs: options.pcrs, generate: generate)
            return (provider, .tpm)
        }
    }

    /// The binding the folder's files record, or `nil` for a keychain that does not exist yet (no folder, or one
    /// with no device key and no database).
    private static func recordedBinding(in home: KeychainHome) throws(KeychainError) -> DeviceKeyBinding? {
        guard let folder = try? KeychainFolder(home.path, creatingIfMissing: false) else { return nil }
        let sealed = folder.size(of: KeychainHome.sealedDeviceKeyName) != nil
        let file = folder.size(of: KeychainHome.deviceKeyName) != nil
        switch (sealed, file) {
        case (true, true):
            throw KeychainError(
                .invalidKeychain,
                "\(home.path) holds both a TPM-sealed device key (\(KeychainHome.sealedDeviceKeyName)) and a device key "
                    + "file (\(KeychainHome.deviceKeyName)); remove the one that does not belong to this keychain")
        case (true, false):
            return .tpm
        case (false, true):
            return .file
        case (false, false):
            // A database without any device key is the file binding's "device key is missing" case.
            return (folder.size(of: KeychainHome.databaseName) ?? 0) > 0 ? .file : nil
        }
    }
}
