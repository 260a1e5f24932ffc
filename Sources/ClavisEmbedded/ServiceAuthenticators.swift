public import ClavisAuthentication

/// What a keychain service authenticates with itself: the biometric sensor whose matches count (a client's own
/// sensor never does), and optionally a trusted passcode prompt the client never sees.
public struct ServiceAuthenticators: Sendable {
    /// The sensor the service consults (`AbsentSensor` for none).
    public var sensor: any BiometricSensor
    /// The service's own passcode prompt (`pinentry`); `nil` when clients collect the passcode.
    public var trustedPrompt: (any TrustedPasscodePrompt)?

    /// Creates a service's authenticators.
    public init(sensor: any BiometricSensor, trustedPrompt: (any TrustedPasscodePrompt)? = nil) {
        self.sensor = sensor
        self.trustedPrompt = trustedPrompt
    }

    /// No sensor and no prompt: biometric checks fail with `biometryNotAvailable`.
    public static let none = ServiceAuthenticators(sensor: AbsentSensor())
}
