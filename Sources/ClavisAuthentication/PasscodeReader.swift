public import ClavisCore

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
