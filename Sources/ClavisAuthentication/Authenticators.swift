public import ClavisCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The authenticators an evaluation may use: a biometric sensor, a passcode prompt, and the keychain that checks
/// the passcode. Pluggable: tests and embedders may build their own.
public struct Authenticators: Sendable {
    /// The biometric sensor (`AbsentSensor` when there is none).
    public var sensor: any BiometricSensor
    /// The passcode prompt.
    public var passcode: PasscodeAuthenticator
    /// Opens the keychain that checks passcodes; called when an evaluation needs it.
    public var verifier: @Sendable () throws(KeychainError) -> any PasscodeVerifier
    /// Tells the keychain service that a session ended, so that it forgets what the session proved; `nil` when the
    /// service keeps no record.
    public var endSession: (@Sendable (AuthenticationSessionID) -> Void)?

    /// Creates a set of authenticators.
    public init(
        sensor: any BiometricSensor, passcode: PasscodeAuthenticator,
        verifier: @escaping @Sendable () throws(KeychainError) -> any PasscodeVerifier,
        endSession: (@Sendable (AuthenticationSessionID) -> Void)? = nil
    ) {
        self.sensor = sensor
        self.passcode = passcode
        self.verifier = verifier
        self.endSession = endSession
    }

    /// Where to ask for the passcode: the askpass program when one is named, else the controlling terminal, else
    /// nowhere.
    public static func passcodeReader(askpassProgram: String?) -> (any PasscodeReader)? {
        if let askpassProgram { return AskpassPasscodeReader(program: askpassProgram) }
        return TerminalPasscodeReader()
    }

    /// The biometric sensor: the scripted sensor when `biometryScript` is given, else the desktop's (fprintd when
    /// it can be spoken to, looked for on first use), else none.
    public static func sensor(biometryScript: String?) -> any BiometricSensor {
        if let biometryScript { return ScriptedSensor(path: biometryScript) }
        return DesktopSensor(uid: getuid())
    }
}
