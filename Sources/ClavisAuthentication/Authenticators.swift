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

    /// Creates a set of authenticators.
    public init(
        sensor: any BiometricSensor, passcode: PasscodeAuthenticator,
        verifier: @escaping @Sendable () throws(KeychainError) -> any PasscodeVerifier
    ) {
        self.sensor = sensor
        self.passcode = passcode
        self.verifier = verifier
    }

    /// The authenticators this process's environment names.
    ///
    /// - Sensor: the scripted sensor when `CLAVIS_BIOMETRY_SCRIPT` names a file; else fprintd when its clients are
    ///   installed; else none.
    /// - Passcode: the askpass program named by `CLAVIS_ASKPASS` when set; else the controlling terminal; else none
    ///   (evaluations needing a passcode fail with `notInteractive`).
    public static func fromEnvironment(
        verifier: @escaping @Sendable () throws(KeychainError) -> any PasscodeVerifier
    ) -> Authenticators {
        Authenticators(
            sensor: sensorFromEnvironment(), passcode: PasscodeAuthenticator(reader: passcodeReaderFromEnvironment()),
            verifier: verifier)
    }

    /// Where this process's environment says to ask for the passcode: the askpass program named by
    /// `CLAVIS_ASKPASS`, else the controlling terminal, else nowhere.
    public static func passcodeReaderFromEnvironment() -> (any PasscodeReader)? {
        if let askpass = environment("CLAVIS_ASKPASS") { return AskpassPasscodeReader(program: askpass) }
        return TerminalPasscodeReader()
    }

    /// The biometric sensor this process's environment names: the scripted sensor when `CLAVIS_BIOMETRY_SCRIPT`
    /// is set, else fprintd when its clients are installed, else none.
    public static func sensorFromEnvironment() -> any BiometricSensor {
        if let script = environment("CLAVIS_BIOMETRY_SCRIPT") { return ScriptedSensor(path: script) }
        if let fprintd = FprintdSensor(user: userName) { return fprintd }
        return AbsentSensor()
    }

    private static func environment(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        let value = String(cString: raw)
        return value.isEmpty ? nil : value
    }

    private static var userName: String {
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return environment("USER") ?? ""
    }
}
