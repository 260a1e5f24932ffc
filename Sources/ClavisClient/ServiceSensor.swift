import ClavisAuthentication
import ClavisCore
import FoundationEssentials

/// The keychain service's biometric sensor, as an authentication session sees it: checks run where the service runs
/// (in daemon mode, the daemon's configured sensor; the client's own never counts), and a match is recorded there
/// for this session only.
struct ServiceSensor: BiometricSensor {
    /// The session a match counts for.
    let session: AuthenticationSessionID
    /// The keychain service, reached when a check needs it.
    let service: @Sendable () throws(KeychainError) -> any KeychainService

    var kind: BiometryKind { (try? service().biometryStatus().kind) ?? .none }

    func enrolmentState() throws(AuthenticationFailure) -> Data {
        guard let status = try? service().biometryStatus() else { throw .biometryNotAvailable }
        return try status.enrolment.get()
    }

    func verify(reason: String) throws(AuthenticationFailure) -> Data {
        let outcome: Result<Data, AuthenticationFailure>
        do {
            outcome = try service().scanBiometry(reason: reason, session: session)
        } catch {
            throw .biometryNotAvailable
        }
        return try outcome.get()
    }

    /// Nothing to do here: the service ends a biometric lockout itself when it verifies the passcode.
    func passcodeSucceeded() {}

    var isLockedOut: Bool { (try? service().biometryStatus().isLockedOut) ?? false }
}
