public import ClavisCore
public import FoundationEssentials

/// Asks the user for the keychain passcode.
///
/// Implementations: `TerminalPasscodeReader` (the controlling terminal, echo off) and `AskpassPasscodeReader`
/// (a program named by `CLAVIS_ASKPASS`). A passcode only ever lives in a `SecureBytes`.
public protocol PasscodeReader: Sendable {
    /// How many passcodes one evaluation may ask for before it fails with `authenticationFailed`.
    var attempts: Int { get }

    /// Shows `prompt` and returns what the user entered, or `nil` when the user canceled.
    func readPasscode(prompt: String) -> SecureBytes?
}

extension PasscodeReader {
    /// Asks for the keychain passcode, up to `attempts` times, handing each answer to `check` until one is right:
    /// the one rule for every passcode prompt (unlocking, verifying for an access control).
    ///
    /// Before each prompt the keychain's lockout is read (`lockout`, when attempts are allowed again, `nil` when
    /// they are now); while attempts are refused nobody is asked for a passcode that cannot be checked, and the
    /// lockout error, saying for how long, ends the loop.
    /// - Throws: `userCanceled` when the user cancels; the lockout's `authFailed`; the last `authFailed` when
    ///   every answer was wrong; any other error of `check` at once.
    public func askForPasscode<Result>(
        prompt: String, lockout: () throws(KeychainError) -> Date?,
        check: (SecureBytes) throws(KeychainError) -> Result
    ) throws(KeychainError) -> Result {
        var failure = KeychainError(.authFailed, "the keychain passcode was not entered")
        for _ in 0..<max(1, attempts) {
            if let until = try lockout() { throw KeychainError.passcodeLockout(until: until) }
            guard let passcode = readPasscode(prompt: prompt) else {
                throw KeychainError(.userCanceled, "the passcode prompt was canceled")
            }
            do {
                return try check(passcode)
            } catch  where error.code == .authFailed {
                failure = error
            }
        }
        throw failure
    }
}
