internal import CTPM

/// A TPM or tpm2-tss response code (0 for success), with the text tpm2-tss gives for it. Never holds a secret.
public struct TPMResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as tpm2-tss returns it: the layer in the high byte, the TPM's code below.
    public let rawValue: UInt32

    /// Wraps a response code.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Success.
    public static let success = TPMResponseCode(rawValue: 0)

    /// The TPM's code without its layer and without the parameter, handle or session it names.
    public var base: UInt32 { clavis_tpm_base_code(rawValue) }

    /// True for a code the TPM itself answered (layer 0), as opposed to one from tpm2-tss on the way.
    public var isFromTPM: Bool { rawValue >> 16 == 0 }

    /// True when the TPM's dictionary-attack protection refuses authorizations for now (`TPM_RC_LOCKOUT`).
    public var isLockout: Bool { isFromTPM && base == 0x921 }

    /// True when a policy was not satisfied (`TPM_RC_POLICY_FAIL`, or `TPM_RC_PCR_CHANGED` during its check).
    public var isPolicyFailure: Bool { isFromTPM && (base == 0x099 || base == 0x128) }

    /// The code in hexadecimal and tpm2-tss's text for it.
    public var description: String {
        let text = String(cString: clavis_tpm_error_text(rawValue))
        return "\(text) (0x\(String(rawValue, radix: 16)))"
    }
}
