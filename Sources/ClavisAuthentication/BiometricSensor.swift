public import ClavisCore
public import FoundationEssentials

/// A biometric sensor: tells what is enrolled and checks the user against it.
///
/// Implementations: `ScriptedSensor` (tests and developers), `FprintdSensor` (a desktop's fingerprint reader),
/// `AbsentSensor` (none). Biometric templates never leave the sensor; only a digest of the enrolled set does.
public protocol BiometricSensor: Sendable {
    /// The kind of sensor.
    var kind: BiometryKind { get }

    /// A value that changes whenever the enrolled set changes (Apple's `evaluatedPolicyDomainState`).
    ///
    /// - Throws: `biometryNotAvailable` without a working sensor, `biometryNotEnrolled` when nothing is enrolled.
    func enrolmentState() throws(AuthenticationFailure) -> Data

    /// Asks for one biometric check; returns the enrolment state the match was made under.
    ///
    /// - Throws: `authenticationFailed` (no match), `userCancel`, `userFallback`, `biometryLockout`,
    ///   `biometryNotAvailable`, `biometryNotEnrolled`.
    func verify(reason: String) throws(AuthenticationFailure) -> Data

    /// Called after the keychain passcode was verified: ends a biometric lockout.
    func passcodeSucceeded()

    /// True when biometry is locked out now, as far as the sensor can tell without an attempt.
    var isLockedOut: Bool { get }
}

extension BiometricSensor {
    /// Sensors that learn of a lockout only by trying say no.
    public var isLockedOut: Bool { false }
}

/// No biometric sensor: every check fails with `biometryNotAvailable`.
public struct AbsentSensor: BiometricSensor {
    /// Creates the absent sensor.
    public init() {}
    /// `.none`.
    public var kind: BiometryKind { .none }
    /// Always throws `biometryNotAvailable`.
    public func enrolmentState() throws(AuthenticationFailure) -> Data { throw .biometryNotAvailable }
    /// Always throws `biometryNotAvailable`.
    public func verify(reason: String) throws(AuthenticationFailure) -> Data { throw .biometryNotAvailable }
    /// Nothing to reset.
    public func passcodeSucceeded() {}
}
