internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite

extension KeychainError {
    /// Maps an error from a lower layer to the status a keychain caller sees; bound values never appear.
    init(converting error: any Error) {
        switch error {
        case let error as KeychainError:
            self = error
        case let error as DatabaseError where error.isUniquenessViolation:
            self.init(.duplicateItem, "an item with the same primary key already exists")
        case let error as DatabaseError where error.isCorruption:
            self.init(.invalidKeychain, "keychain.db is damaged or not a keychain database (\(error.message))")
        case let error as DatabaseError where error.isBusy:
            self.init(.io, "keychain.db stayed locked by another process past the timeout [\(error.sql)]")
        case let error as DatabaseError:
            self.init(.io, error.description)
        case CryptoError.authenticationFailed:
            self.init(.decode, "stored data failed authentication")
        case let error as CryptoError:
            self.init(.io, "cryptographic operation failed: \(error)")
        default:
            self.init(.io, "unexpected failure: \(type(of: error))")
        }
    }
}
