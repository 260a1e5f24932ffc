/// How a keychain created from now on binds its device key, and where the TPM is reached: a value built where the
/// program starts (`ClavisConfiguration`, `DaemonSettings`) and passed down, never read from the environment below.
///
/// An existing keychain keeps the binding it was created with (its `device.tpm` or `device.key` says which); only
/// the TCTI is taken from here to reach its TPM.
public struct DeviceKeyOptions: Sendable, Hashable {
    /// The TCTI the kernel's resource manager is reached through, used when none is configured.
    public static let defaultTCTI = "device:/dev/tpmrm0"

    /// The binding of a keychain created now.
    public var binding: DeviceKeyBinding
    /// The TPM's TCTI string in tpm2-tss syntax (`swtpm:host=127.0.0.1,port=2321`, `device:/dev/tpmrm0`).
    public var tcti: String
    /// The SHA-256 PCRs (0 to 23) whose current values a new TPM-bound keychain's device key is sealed to; empty for
    /// none.
    public var pcrs: [Int]

    /// Options binding new keychains as `binding`, reaching the TPM through `tcti`, sealing to `pcrs`.
    public init(binding: DeviceKeyBinding = .file, tcti: String = Self.defaultTCTI, pcrs: [Int] = []) {
        self.binding = binding
        self.tcti = tcti
        self.pcrs = pcrs
    }

    /// Options from their texts, as a user writes them (`CLAVIS_DEVICE_KEY`, `CLAVIS_TPM_TCTI`, `CLAVIS_TPM_PCRS`, or
    /// clavisd's options): `binding` is `tpm` or `file` (default `file`), `tcti` a tpm2-tss TCTI string (default
    /// `device:/dev/tpmrm0`), `pcrs` a list such as `0,7` (default none).
    ///
    /// - Throws: `param` naming the value that is not understood.
    public init(binding: String?, tcti: String?, pcrs: String?) throws(KeychainError) {
        var chosen = DeviceKeyBinding.file
        if let binding {
            guard let known = DeviceKeyBinding(rawValue: binding) else {
                throw KeychainError(.param, "device-key binding \"\(binding)\" is neither tpm nor file")
            }
            chosen = known
        }
        self.init(binding: chosen, tcti: tcti ?? Self.defaultTCTI, pcrs: try pcrs.map(Self.parsePCRs) ?? [])
    }

    /// The file binding with the default TCTI: how keychains were made before TPMs were supported.
    public static let file = DeviceKeyOptions()

    /// Reads a PCR list such as `0,7` (SHA-256 bank indices 0 to 23, no repeats).
    ///
    /// - Throws: `param` naming the entry that is not such an index.
    public static func parsePCRs(_ text: String) throws(KeychainError) -> [Int] {
        var indices: [Int] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let index = Int(entry), (0...23).contains(index), !indices.contains(index) else {
                throw KeychainError(
                    .param, "PCR list entry \"\(entry)\" is not a new SHA-256 PCR index from 0 to 23 (write e.g. 0,7)")
            }
            indices.append(index)
        }
        return indices.sorted()
    }
}
