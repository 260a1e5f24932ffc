/// What the scripted sensor does at one biometric check (`TemporaryKeychain.scheduleBiometricChecks`).
public enum BiometricOutcome: String, Sendable, Hashable {
    /// An enrolled finger or face matches.
    case match
    /// Nothing enrolled matches (five in a row lock biometry out until the passcode is entered).
    case noMatch = "no-match"
    /// The user cancels.
    case cancel
    /// The user chooses to enter the passcode instead.
    case fallback
    /// Biometry is locked out.
    case lockout
}
