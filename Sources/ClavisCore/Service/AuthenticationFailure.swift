/// Why an authentication did not succeed, one case per `LAError` code that Clavis's authenticators produce.
///
/// The raw values are Apple's `LAError.Code` values. Never carries a passcode or biometric data.
public enum AuthenticationFailure: Int, Error, Sendable, Hashable {
    /// Wrong passcode, or a biometric scan that did not match.
    case authenticationFailed = -1
    /// The user canceled (an askpass program that exited non-zero, end of input on the terminal, a scripted cancel).
    case userCancel = -2
    /// The user chose the fallback instead of biometry.
    case userFallback = -3
    /// The system canceled.
    case systemCancel = -4
    /// The keychain has no passcode.
    case passcodeNotSet = -5
    /// No biometric sensor is available.
    case biometryNotAvailable = -6
    /// The sensor has no enrolled biometry.
    case biometryNotEnrolled = -7
    /// Biometry is locked after too many failed attempts, until a passcode succeeds.
    case biometryLockout = -8
    /// The application invalidated the context during an evaluation.
    case appCancel = -9
    /// The context was invalidated.
    case invalidContext = -10
    /// The policy needs a paired companion device (Apple's watch), which Linux never has.
    case companionNotAvailable = -11
    /// Authentication would need the user and interaction is not allowed (no terminal and no askpass program, or
    /// `interactionNotAllowed`).
    case notInteractive = -1004

    /// The keychain error a `SecItem*` call returns for this failure.
    ///
    /// Cancellations are `errSecUserCanceled` (-128); no interaction possible is `errSecInteractionNotAllowed`
    /// (-25308); everything else is `errSecAuthFailed` (-25293).
    public var keychainError: KeychainError {
        switch self {
        case .userCancel, .appCancel, .systemCancel, .userFallback:
            KeychainError(.userCanceled, "authentication was canceled")
        case .notInteractive:
            KeychainError(.interactionNotAllowed, "the item needs authentication and interaction is not allowed")
        default:
            KeychainError(.authFailed, "authentication failed (\(self))")
        }
    }
}
