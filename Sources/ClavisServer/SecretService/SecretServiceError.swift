import ClavisCore

/// A Secret Service failure as the specification names it; its message goes to the caller, so it never holds a secret.
struct SecretServiceError: Error {
    /// The D-Bus error names the provider answers with.
    enum Kind {
        case failed, noSuchObject, isLocked, noSession, invalidArguments, notSupported, accessDenied
    }

    var kind: Kind
    var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The keychain's error as the Secret Service names it: a locked keychain is `IsLocked`, a refused caller
    /// `AccessDenied`, bad input `InvalidArgs`; anything else fails with the keychain's own one-line reason.
    init(_ error: KeychainError) {
        switch error.code {
        case .interactionNotAllowed: self.init(.isLocked, error.reason)
        case .missingEntitlement: self.init(.accessDenied, error.reason)
        case .param, .noSuchAttribute, .dataTooLarge: self.init(.invalidArguments, error.reason)
        case .itemNotFound: self.init(.noSuchObject, error.reason)
        default: self.init(.failed, error.reason)
        }
    }
}
