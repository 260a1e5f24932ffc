import ClavisAuthentication
public import ClavisCore

/// Unlocks a keychain that a call found locked by asking for its passcode, as macOS asks before using a locked
/// keychain: on the terminal or through `CLAVIS_ASKPASS`, a few attempts, never when the caller forbade
/// interaction or nobody can be asked.
enum KeychainUnlock {
    /// The prompt, as `security` words it.
    static let prompt = "password to unlock keychain: "

    /// Unlocks `store` when it is locked and has a passcode and someone can be asked; else rethrows `blocked`.
    ///
    /// - Throws: `blocked` when nothing can be done, `authFailed` after the reader's attempts were all wrong (or
    ///   attempts are locked out), `userCanceled` when the user cancels.
    static func unlock(_ store: any KeychainStore, blocked: KeychainError) throws(KeychainError) {
        guard store.hasPasscode, store.lockState != .unlocked,
            let reader = Authenticators.passcodeReaderFromEnvironment()
        else { throw blocked }
        var failure = KeychainError(.authFailed, "the keychain passcode was not entered")
        for _ in 0..<max(reader.attempts, 1) {
            guard let passcode = reader.readPasscode(prompt: prompt) else {
                throw KeychainError(.userCanceled, "unlocking the keychain was canceled")
            }
            do {
                try store.unlock(passcode: passcode)
                return
            } catch  where error.code == .authFailed {
                failure = error
            }
        }
        throw failure
    }
}

/// For `clavis`: unlocks this process's embedded keychain before a command when it is locked and someone can be
/// asked, so listings show every item; returns when there was nothing to do or nobody to ask.
///
/// - Throws: the unlock's failure, whose reason says what happened (a wrong passcode, a lockout and its length).
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisUnlockIfLocked() throws(KeychainError) {
    let nothingToDo = KeychainError(.interactionNotAllowed, "the keychain stays as it is")
    do throws(KeychainError) {
        try KeychainUnlock.unlock(try ClavisEmbeddedKeychain(), blocked: nothingToDo)
    } catch  where error.code == .interactionNotAllowed {
        return
    }
}
