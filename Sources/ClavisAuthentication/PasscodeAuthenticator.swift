public import ClavisCore
public import FoundationEssentials

/// What checks a passcode: the keychain, whose wrong attempts count toward its lockout with backoff.
public protocol PasscodeVerifier: Sendable {
    /// True while the keychain has a passcode.
    var hasPasscode: Bool { get }

    /// Checks `passcode` and returns the keychain's identity, recorded in the proof of a verified passcode so no
    /// other keychain accepts it.
    ///
    /// - Throws: `authFailed` for a wrong passcode or while attempts are refused after too many failures.
    func verifyPasscode(_ passcode: SecureBytes) throws(KeychainError) -> Data

    /// When passcode attempts are allowed again after too many wrong ones; `nil` when they are allowed now.
    var passcodeLockout: Date? { get throws(KeychainError) }

    /// True when the keychain asks for the passcode through a prompt of its own (the daemon's `pinentry`), which
    /// the client never sees.
    var hasTrustedPrompt: Bool { get }

    /// Has the keychain ask for the passcode through its own prompt, showing `description`, and check it; returns
    /// the keychain's identity.
    ///
    /// - Throws: `userCanceled`, `authFailed`, `interactionNotAllowed` when the prompt cannot reach the user.
    func promptForPasscode(description: String) throws(KeychainError) -> Data
}

extension PasscodeVerifier {
    /// Keychains without a prompt of their own.
    public var hasTrustedPrompt: Bool { false }

    /// Throws `unimplemented`: the keychain has no prompt of its own.
    public func promptForPasscode(description: String) throws(KeychainError) -> Data {
        throw KeychainError(.unimplemented, "this keychain has no passcode prompt of its own")
    }
}

/// Authenticates the user by the keychain passcode, read by a `PasscodeReader` and checked by a `PasscodeVerifier`.
///
/// The passcode goes from the reader straight to the verifier in a `SecureBytes`; it never reaches an argument, an
/// error or a log line. Lockout and backoff after repeated failures are the keychain's.
public struct PasscodeAuthenticator: Sendable {
    /// Where the passcode is asked; `nil` when there is no terminal and no askpass program.
    public let reader: (any PasscodeReader)?

    /// An authenticator asking through `reader`.
    public init(reader: (any PasscodeReader)?) { self.reader = reader }

    /// Asks for the passcode (up to the reader's number of attempts) and checks it; when the keychain has a prompt
    /// of its own, that prompt asks instead and the reader is not used.
    ///
    /// - Throws: `passcodeNotSet` when the keychain has none; `notInteractive` when there is nowhere to ask or
    ///   `interactive` is false; `userCancel`; `authenticationFailed` for wrong passcodes or a locked-out keychain
    ///   (which is not asked for a passcode while attempts are refused).
    /// - Returns: the identity of the keychain that checked the passcode.
    public func authenticate(prompt: String, verifier: any PasscodeVerifier, interactive: Bool)
        throws(AuthenticationFailure) -> Data
    {
        guard verifier.hasPasscode else { throw .passcodeNotSet }
        guard interactive else { throw .notInteractive }
        if verifier.hasTrustedPrompt {
            do {
                return try verifier.promptForPasscode(description: prompt)
            } catch {
                switch error.code {
                case .userCanceled: throw .userCancel
                case .interactionNotAllowed: throw .notInteractive
                default: throw .authenticationFailed
                }
            }
        }
        guard let reader else { throw .notInteractive }
        do {
            // A lockout that cannot be read lets the verifier answer, as it counts the attempt itself.
            return try reader.askForPasscode(prompt: prompt) {
                (try? verifier.passcodeLockout) ?? nil
            } check: { passcode throws(KeychainError) in
                try verifier.verifyPasscode(passcode)
            }
        } catch {
            throw error.code == .userCanceled ? .userCancel : .authenticationFailed
        }
    }

    /// Asks for an application password, which only the item it opens can check.
    ///
    /// - Throws: `notInteractive` when there is nowhere to ask or `interactive` is false; `userCancel`;
    ///   `authenticationFailed` for an empty answer.
    public func readApplicationPassword(prompt: String, interactive: Bool) throws(AuthenticationFailure)
        -> SecureBytes
    {
        guard interactive, let reader else { throw .notInteractive }
        guard let password = reader.readPasscode(prompt: prompt) else { throw .userCancel }
        guard !password.isEmpty else { throw .authenticationFailed }
        return password
    }

    /// Asks for a new application password and its confirmation, up to the reader's number of tries.
    ///
    /// - Throws: as `readApplicationPassword`, and `authenticationFailed` when no two answers matched.
    public func readNewApplicationPassword(prompt: String, confirmationPrompt: String, interactive: Bool)
        throws(AuthenticationFailure) -> SecureBytes
    {
        let tries = max(1, reader?.attempts ?? 1)
        for _ in 0..<tries {
            let password = try readApplicationPassword(prompt: prompt, interactive: interactive)
            let confirmation = try readApplicationPassword(prompt: confirmationPrompt, interactive: interactive)
            if password == confirmation { return password }
        }
        throw .authenticationFailed
    }
}
