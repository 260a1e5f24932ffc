import ClavisAuthentication
import ClavisClient
import ClavisCore

/// Prepares an access control for storing: checked for the item's class, and a `biometryCurrentSet` policy bound to
/// the biometric enrolment of now.
enum AccessControlBinding {
    /// The policy to store with an item of `itemClass`.
    ///
    /// - Throws: `param` for Apple's invalid combinations; `notAvailable` for `biometryCurrentSet` when no biometry
    ///   is enrolled (or no sensor is available), before the store is asked.
    static func bound(_ policy: AccessControl, for itemClass: ItemClass) throws(KeychainError) -> AccessControl {
        try policy.validate(for: itemClass)
        guard policy.constraints.contains(.biometryCurrentSet), policy.boundBiometryEnrolment == nil else {
            return policy
        }
        var bound = policy
        do {
            bound.boundBiometryEnrolment = try Authenticators.sensor(
                biometryScript: ClavisConfiguration.current.biometryScript
            )
            .enrolmentState()
        } catch {
            throw KeychainError(.notAvailable, "biometryCurrentSet needs enrolled biometry (\(error))")
        }
        return bound
    }
}
