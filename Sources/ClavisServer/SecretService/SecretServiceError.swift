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

    /// The status and outcome the access log records for this error, in the keychain's terms: a locked keychain
    /// or item needs an unlock, a missing object was not found.
    var logged: (status: Int32, outcome: String) {
        switch kind {
        case .isLocked: (KeychainError.Code.interactionNotAllowed.rawValue, "needs unlock")
        case .noSuchObject: (KeychainError.Code.itemNotFound.rawValue, "not found")
        case .accessDenied: (KeychainError.Code.missingEntitlement.rawValue, "failed")
        case .invalidArguments, .noSession: (KeychainError.Code.param.rawValue, "failed")
        case .notSupported: (KeychainError.Code.unimplemented.rawValue, "failed")
        case .failed: (KeychainError.Code.internal.rawValue, "failed")
        }
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
