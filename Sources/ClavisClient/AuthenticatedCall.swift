import ClavisAuthentication
import ClavisCore

/// Runs an item call that may meet access-controlled items or a locked keychain, authenticating and retrying as
/// Apple's keychain does.
///
/// The call first goes to the service with the fresh credentials of the given session (none without one). When the
/// service answers that something is needed first:
/// - the keychain is locked: its passcode is asked for once (terminal or askpass), as macOS does, unless the call
///   may not ask or follows the data-protection keychain (`asksToUnlock` false);
/// - an item's access control needs an authentication: under `fail` (or `skip`, where the service already left
///   such items out) the call answers `interactionNotAllowed`; otherwise the policy is evaluated on the session
///   (a fresh one without), which asks for biometry or the passcode, and the call is retried with the new
///   credentials. A failed authentication is `authFailed`, a cancellation `userCanceled`, no way to ask (no
///   terminal, no askpass program, or the session's `interactionNotAllowed`) `interactionNotAllowed`.
///
/// An item whose `biometryCurrentSet` enrolment changed answers `authFailed`, now and forever; only a delete may
/// still remove it, after one biometric match under the current enrolment.
enum AuthenticatedCall {
    /// How many policies one call may authenticate for before giving up (items of one query may differ).
    static let maximumEvaluations = 4

    /// Runs `body` with the credentials to hand to the service, authenticating as needed.
    static func run<Result: Sendable>(
        _ options: CallAuthentication, operation: ItemOperation, client: KeychainClient,
        _ body: (AuthenticationProof?, UnauthenticatedItemPolicy) throws(KeychainError) -> ServiceAnswer<Result>
    ) throws(KeychainError) -> Result {
        var unlockAsked = false
        var wrongApplicationPasswords = 0
        let unauthenticated: UnauthenticatedItemPolicy = options.interface == .skip ? .skip : .fail
        var session = options.session
        var proof = session?.credentials?.proof
        for _ in 0...maximumEvaluations {
            let answer: ServiceAnswer<Result>
            do {
                answer = try body(proof, unauthenticated)
            } catch  where error.code == .authFailed && error.pendingAccessControl != nil {
                // A wrong application password: one the user typed is forgotten, and asked for again while the
                // prompt's tries last; one the app set stands, and so does the failure.
                guard let session, session.forgetTypedApplicationPassword(), options.interface == .allow,
                    wrongApplicationPasswords + 1 < session.applicationPasswordAttempts
                else { throw error }
                wrongApplicationPasswords += 1
                proof = session.credentials?.proof
                continue
            }
            switch answer {
            case .done(let result):
                return result
            case .needsUnlock:
                let locked = KeychainError(
                    .interactionNotAllowed, "the keychain is locked and the call may not ask for its passcode")
                guard options.interface == .allow, options.asksToUnlock, !unlockAsked,
                    session?.interactionNotAllowed != true
                else {
                    throw locked
                }
                unlockAsked = true
                try client.unlockAsking(otherwise: locked)
            case .needsAuthentication(let pending, let use):
                guard options.interface == .allow else {
                    throw KeychainError(.interactionNotAllowed, "the item's access control needs authentication")
                }
                let evaluating = session ?? client.makeAuthenticationSession()
                session = evaluating
                do {
                    try evaluating.evaluate(
                        flags: pending.flags, boundEnrolment: pending.boundBiometryEnrolment,
                        reason: options.reason ?? operation.defaultReason, forDeletion: operation == .delete,
                        applicationPasswordUse: use)
                } catch {
                    throw error.keychainError
                }
                proof = evaluating.credentials?.proof
            }
        }
        throw KeychainError(.authFailed, "the items' access controls were not satisfied")
    }
}
