public import ClavisCore

/// A passcode prompt the keychain service runs itself (the daemon's `pinentry`), so that the client asking never
/// sees the passcode.
public protocol TrustedPasscodePrompt: Sendable {
    /// How many passcodes one request may ask for.
    var attempts: Int { get }

    /// Shows `prompt` (with `error`, the previous answer's failure, when there was one) and returns what the user
    /// entered.
    ///
    /// - Throws: `userCanceled` when the user canceled, `interactionNotAllowed` when the prompt cannot reach the
    ///   user (no program, no display or terminal it can use).
    func readPasscode(_ prompt: PasscodePrompt, error: String?) throws(KeychainError) -> SecureBytes
}
