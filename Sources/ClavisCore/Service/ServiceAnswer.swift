/// What an item call answers: its result, or what the caller must do first and then ask again.
///
/// Needing an authentication is not a failure: the keychain says which policy, and the caller (which can talk to
/// the user) decides whether and how to satisfy it, then retries with the new proof.
public enum ServiceAnswer<Result: Sendable>: Sendable {
    /// The call ran.
    case done(Result)
    /// The keychain is locked: an item the call needs is in a closed protection class. Unlocking with the
    /// keychain passcode opens it.
    case needsUnlock
    /// An item's access control needs an authentication the proof given does not satisfy: this policy, and
    /// whether an application password opens an existing secret or seals a new one.
    case needsAuthentication(AccessControl, KeychainError.ApplicationPasswordUse)
}

extension ServiceAnswer {
    /// The same answer with its result transformed; a transform that fails fails the call.
    @inlinable
    public func map<Other: Sendable, Failure: Error>(_ transform: (Result) throws(Failure) -> Other) throws(Failure)
        -> ServiceAnswer<Other>
    {
        switch self {
        case .done(let result): .done(try transform(result))
        case .needsUnlock: .needsUnlock
        case .needsAuthentication(let policy, let use): .needsAuthentication(policy, use)
        }
    }

    /// The answer of `transform` on this answer's result, which may itself need something first; this answer's
    /// need when it has one.
    @inlinable
    public func flatMap<Other: Sendable, Failure: Error>(
        _ transform: (Result) throws(Failure) -> ServiceAnswer<Other>
    ) throws(Failure) -> ServiceAnswer<Other> {
        switch self {
        case .done(let result): try transform(result)
        case .needsUnlock: .needsUnlock
        case .needsAuthentication(let policy, let use): .needsAuthentication(policy, use)
        }
    }
}
