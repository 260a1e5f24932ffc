import ClavisCore

extension EmbeddedKeychainService {
    /// `attributes` with a `biometryCurrentSet` access control bound to the enrolment of the service's own sensor,
    /// whatever enrolment the client named: only the sensor that will check the matches decides what "the current
    /// set" is (in the daemon, the daemon's sensor, not one the client chose).
    ///
    /// - Throws: `notAvailable` when that sensor has nothing enrolled or cannot be reached.
    func bindingBiometry(_ attributes: [AttributeKey: AttributeValue]) throws(KeychainError)
        -> [AttributeKey: AttributeValue]
    {
        guard case .data(let encoded)? = attributes[.accessControl] else { return attributes }
        var policy = try AccessControl(encoded: encoded)
        guard policy.constraints.contains(.biometryCurrentSet) else { return attributes }
        do {
            policy.boundBiometryEnrolment = try authenticators.sensor.enrolmentState()
        } catch {
            throw KeychainError(.notAvailable, "biometryCurrentSet needs enrolled biometry (\(error))")
        }
        var bound = attributes
        bound[.accessControl] = .data(policy.encoded)
        return bound
    }
}
