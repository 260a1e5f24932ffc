package import ClavisCore

extension ServiceAnswer {
    /// The result of a call that ran; a need as the `interactionNotAllowed` error the store threw before it answered
    /// (naming the policy in `KeychainError.pendingAccessControl`, and what its application password is for).
    ///
    /// The convenience for a direct caller of the store that cannot ask anyone and treats a need as a failure: a
    /// test, a benchmark, a restore. The keychain service never uses it: it passes answers on, and the caller that
    /// can talk to the user decides what to ask.
    package func resultOrThrow() throws(KeychainError) -> Result {
        switch self {
        case .done(let result):
            return result
        case .needsUnlock:
            throw KeychainError(
                .interactionNotAllowed, "an item's protection class is closed while the keychain is locked")
        case .needsAuthentication(let policy, .seal):
            throw KeychainError(
                .interactionNotAllowed, "the item's access control needs a new application password",
                pendingAccessControl: policy, applicationPasswordUse: .seal)
        case .needsAuthentication(let policy, .open):
            throw KeychainError(
                .interactionNotAllowed, "the item's access control needs authentication", pendingAccessControl: policy)
        }
    }
}
