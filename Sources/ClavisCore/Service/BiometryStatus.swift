public import FoundationEssentials

/// What the keychain service's biometric sensor says without a check: the sensor the service consults (in the
/// daemon, the one its configuration names; a client's own sensor never counts there).
public struct BiometryStatus: Sendable, Hashable {
    /// The kind of sensor; `.none` without one.
    public var kind: BiometryKind
    /// The enrolment state (Apple's `evaluatedPolicyDomainState`), or why there is none (`biometryNotAvailable`,
    /// `biometryNotEnrolled`).
    public var enrolment: Result<Data, AuthenticationFailure>
    /// True when biometry is locked out now, as far as the sensor can tell without an attempt.
    public var isLockedOut: Bool

    /// Creates a sensor status.
    public init(kind: BiometryKind, enrolment: Result<Data, AuthenticationFailure>, isLockedOut: Bool) {
        self.kind = kind
        self.enrolment = enrolment
        self.isLockedOut = isLockedOut
    }
}
