import ClavisAuthentication
import ClavisCore

/// Runs a store call that may meet access-controlled items, authenticating and retrying as Apple's keychain does.
///
/// The call first goes to the store with the fresh credentials of the `LAContext` given in
/// `kSecUseAuthenticationContext` (none without one). When the store answers that an item's access control needs
/// authentication (`interactionNotAllowed` naming the policy):
/// - under `kSecUseAuthenticationUIFail`, or `Skip` (where the store already left such items out), that answer
///   stands: `errSecInteractionNotAllowed`;
/// - otherwise the policy is evaluated on the given context, or on a fresh one, which asks for biometry or the
///   passcode, and the call is retried with the new credentials. A failed authentication is `errSecAuthFailed`, a
///   cancellation `errSecUserCanceled`, no way to ask (no terminal, no askpass program, or the context's
///   `interactionNotAllowed`) `errSecInteractionNotAllowed`.
///
/// A keychain that is locked (its class keys closed) is unlocked first when someone can be asked for its passcode.
///
/// An item whose `biometryCurrentSet` enrolment changed answers `errSecAuthFailed`, now and forever; only a delete
/// may still remove it, after one biometric match under the current enrolment.
enum AuthenticatedCall {
    /// How many policies one call may authenticate for before giving up (items of one query may differ).
    static let maximumEvaluations = 4

    /// Runs `body` with the credentials to hand to the store, authenticating as needed.
    static func run<Result>(
        _ options: AuthenticationOptions, operation: Operation, store: any KeychainStore,
        _ body: (AuthenticationProof?, UnauthenticatedItemPolicy) throws(KeychainError) -> Result
    ) throws(KeychainError) -> Result {
        var unlockAsked = false
        var wrongApplicationPasswords = 0
        let unauthenticated: UnauthenticatedItemPolicy = options.interface == .skip ? .skip : .fail
        var session = options.context?.clavisSession
        var proof = session.flatMap(Self.proof(of:))
        for _ in 0...maximumEvaluations {
            do {
                return try body(proof, unauthenticated)
            } catch  where error.code == .interactionNotAllowed && error.pendingAccessControl == nil {
                // The keychain itself is locked: ask for its passcode once, as macOS does, then retry.
                guard options.interface == .allow, !unlockAsked,
                    options.context?.clavisSession.interactionNotAllowed != true
                else { throw error }
                unlockAsked = true
                try KeychainUnlock.unlock(store, blocked: error)
            } catch  where error.code == .interactionNotAllowed && error.pendingAccessControl != nil {
                guard options.interface == .allow, let pending = error.pendingAccessControl else { throw error }
                let evaluating = session ?? ClavisAuthenticationSession()
                session = evaluating
                do {
                    try evaluating.evaluate(
                        flags: pending.flags, boundEnrolment: pending.boundBiometryEnrolment,
                        reason: reason(options, operation), forDeletion: operation == .delete,
                        applicationPasswordUse: error.applicationPasswordUse)
                } catch {
                    throw error.keychainError
                }
                proof = Self.proof(of: evaluating)
            } catch  where error.code == .authFailed && error.pendingAccessControl != nil {
                // A wrong application password: one the user typed is forgotten, and asked for again while the
                // prompt's tries last; one the app set stands, and so does the failure.
                guard let session, session.forgetTypedApplicationPassword(), options.interface == .allow,
                    wrongApplicationPasswords + 1 < session.applicationPasswordAttempts
                else { throw error }
                wrongApplicationPasswords += 1
                proof = Self.proof(of: session)
            }
        }
        throw KeychainError(.authFailed, "the items' access controls were not satisfied")
    }

    /// The session's fresh credentials as a proof for the store.
    static func proof(of session: AuthenticationSession) -> AuthenticationProof? {
        session.credentials?.proof
    }

    /// `kSecUseOperationPrompt`, else the context's `localizedReason`, else a sentence naming the operation.
    private static func reason(_ options: AuthenticationOptions, _ operation: Operation) -> String {
        if let prompt = options.prompt { return prompt }
        if let reason = options.context?.localizedReason, !reason.isEmpty { return reason }
        return defaultPrompt(operation)
    }

    private static func defaultPrompt(_ operation: Operation) -> String {
        switch operation {
        case .update: "Authenticate to change a keychain item"
        case .delete: "Authenticate to delete a keychain item"
        default: "Authenticate to use a keychain item"
        }
    }
}
