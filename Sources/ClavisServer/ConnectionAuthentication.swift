import ClavisCore
import ClavisIPC
import FoundationEssentials

/// What a connection proved to the daemon itself: until authentication moves into the daemon, a client evaluates
/// access control with its own `LAContext` and sends the proof, so the daemon keeps the one part it can check, the
/// passcode. A proof's "passcode verified" counts only when this connection had the daemon verify the passcode
/// (or unlock with it) within the reuse window; it is bound to this keychain.
struct ConnectionAuthentication {
    /// The longest an `LAContext`'s credentials stay fresh (Apple's maximum reuse duration).
    static let reuseWindow: Duration = .seconds(300)

    private var passcodeVerifiedAt: ContinuousClock.Instant?

    /// Notes that `request` succeeded: a verified passcode or an unlock with one starts the window.
    mutating func noteSuccess(of request: Request, at now: ContinuousClock.Instant) {
        switch request {
        case .verifyPasscode: passcodeVerifiedAt = now
        case .unlock(let passcode?) where !passcode.isEmpty: passcodeVerifiedAt = now
        default: break
        }
    }

    /// `request` with its proof's passcode part kept only when this connection verified the passcode recently.
    func vetted(_ request: Request, keychainIdentity: Data, at now: ContinuousClock.Instant)
        -> Request
    {
        let verified = passcodeVerifiedAt.map { now - $0 <= Self.reuseWindow } ?? false
        func vet(_ proof: AuthenticationProof?) -> AuthenticationProof? {
            guard var proof else { return nil }
            proof.passcode = proof.passcode && verified
            proof.passcodeKeychain = proof.passcode ? keychainIdentity : nil
            return proof
        }
        switch request {
        case .add(var item):
            item.authentication = vet(item.authentication)
            return .add(item)
        case .find(var query):
            query.authentication = vet(query.authentication)
            return .find(query)
        case .update(var query, let changes):
            query.authentication = vet(query.authentication)
            return .update(query, changes)
        case .delete(var query):
            query.authentication = vet(query.authentication)
            return .delete(query)
        default:
            return request
        }
    }
}
