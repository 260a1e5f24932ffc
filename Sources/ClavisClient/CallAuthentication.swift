public import ClavisAuthentication

/// How an item call may authenticate for access-controlled items (Apple's `kSecUseAuthenticationContext`,
/// `kSecUseAuthenticationUI` and `kSecUseOperationPrompt`, by meaning).
public struct CallAuthentication: Sendable {
    /// Whether the call may ask the user.
    public enum Interface: Sendable, Hashable {
        /// Ask when an item needs it (the default).
        case allow
        /// Never ask: an item that would need asking fails the call with `interactionNotAllowed`.
        case fail
        /// Never ask: searches leave such items out.
        case skip
    }

    /// The session whose fresh credentials the call uses, and where it evaluates; a fresh one when `nil`.
    public var session: AuthenticationSession?
    /// Whether the call may ask the user.
    public var interface: Interface
    /// The reason shown when the user is asked; a sentence naming the operation when `nil`.
    public var reason: String?
    /// Whether a locked keychain's passcode is asked for, as the macOS file keychain does (when the call may ask);
    /// the data-protection keychain (iOS) never asks: a locked keychain answers `interactionNotAllowed`.
    public var asksToUnlock: Bool

    /// Creates the authentication options of a call.
    public init(
        session: AuthenticationSession? = nil, interface: Interface = .allow, reason: String? = nil,
        asksToUnlock: Bool = true
    ) {
        self.session = session
        self.interface = interface
        self.reason = reason
        self.asksToUnlock = asksToUnlock
    }
}

/// The four item calls, for prompts and for the rules that differ between them.
public enum ItemOperation: Sendable, Hashable {
    case add, find, update, delete

    /// The sentence shown when a call asks without a reason of its own.
    var defaultReason: String {
        switch self {
        case .update: "Authenticate to change a keychain item"
        case .delete: "Authenticate to delete a keychain item"
        case .add, .find: "Authenticate to use a keychain item"
        }
    }
}
