/// How hard the key derivation of a new passcode or backup passphrase is.
public enum PasscodeStrength: Sendable, Hashable {
    /// The default: calibrated to about 100 ms on the machine that derives it, or the parameters already recorded.
    case standard
    /// A cheap derivation (scrypt N = 2^10) for tests; recorded the same way, never the default.
    case cheapForTesting
}
