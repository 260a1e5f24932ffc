/// What a keychain's device key is bound to: chosen when the keychain is created, recorded by the file that holds
/// it, and reported by `clavis status`.
public enum DeviceKeyBinding: String, Sendable, Hashable, CaseIterable {
    /// A file readable only by its owner (`device.key`): whoever copies the folder has the keychain.
    case file
    /// Sealed to a TPM 2.0 (`device.tpm`): the keychain opens only where that TPM unseals it.
    case tpm
}
