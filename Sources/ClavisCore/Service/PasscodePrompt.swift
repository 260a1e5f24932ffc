/// A passcode the keychain service asks for itself, through its trusted prompt (`pinentry` in the daemon), so that
/// the client never sees it.
public struct PasscodePrompt: Sendable, Hashable {
    /// What a right passcode is for.
    public enum Purpose: Sendable, Hashable {
        /// Unlocking the keychain.
        case unlock
        /// Authenticating this session for access-controlled items.
        case verify(AuthenticationSessionID)
    }

    /// What a right passcode is for.
    public var purpose: Purpose
    /// The sentence shown to the user (the call's reason).
    public var description: String
    /// Where the client's user sits, the GnuPG way: `ttyname`, `ttytype`, `display`, `lc-ctype` and the like, each
    /// passed to the prompt program as an `OPTION` (and nowhere else).
    public var hints: [String: String]

    /// Creates a prompt.
    public init(purpose: Purpose, description: String, hints: [String: String] = [:]) {
        self.purpose = purpose
        self.description = description
        self.hints = hints
    }
}
