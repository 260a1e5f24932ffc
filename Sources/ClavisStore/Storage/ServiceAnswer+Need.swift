internal import ClavisCore

extension ServiceAnswer {
    /// This answer's need, as the answer of a call with another result: how a need found deep in an operation (a
    /// row's closed class, an access control the proof does not satisfy) becomes the operation's own answer.
    ///
    /// Only for an answer that names a need: a call that ran has a result, which another result type cannot carry.
    func need<Other: Sendable>() -> ServiceAnswer<Other> {
        switch self {
        case .done: preconditionFailure("a call that ran answers its result, not a need")
        case .needsUnlock: .needsUnlock
        case .needsAuthentication(let policy, let use): .needsAuthentication(policy, use)
        }
    }
}
