internal import CFprintd
public import ClavisCore
import ClavisCrypto
public import FoundationEssentials

/// A desktop's fingerprint reader through fprintd (`net.reactivated.Fprint` on the system D-Bus), spoken to with
/// libsystemd's sd-bus.
///
/// The enrolled finger names fprintd lists for the user, with the reader's object path, are hashed (SHA-256) into
/// the enrolment state; a verification claims the reader for the user, starts a verification of any enrolled finger
/// and waits for fprintd's `VerifyStatus` signal. Fingerprint templates stay inside fprintd. The user is the one
/// whose fingers count: in clavisd, the user of the peer (from the socket's credentials), never a name the client
/// sends. Chosen when libsystemd can be loaded and `CLAVIS_BIOMETRY_SCRIPT` (or clavisd's `--biometry-script`) is
/// not set; without fprintd or a reader it reports `.none` and `biometryNotAvailable`.
public struct FprintdSensor: BiometricSensor {
    /// The user whose fingers are checked.
    let user: String
    /// How long a verification waits for a finger.
    let timeoutSeconds: Int32

    /// The sensor for `user`, when libsystemd can be loaded.
    public init?(user: String, timeoutSeconds: Int32 = 60) {
        guard clavis_fprintd_loadable() != 0 else { return nil }
        self.user = user
        self.timeoutSeconds = timeoutSeconds
    }

    /// `.fingerprint` when fprintd answers with a reader, `.none` otherwise.
    public var kind: BiometryKind {
        let outcome = enrolled().outcome
        return outcome > 0 || outcome == CLAVIS_FPRINTD_NOT_ENROLLED.rawValue ? .fingerprint : .none
    }

    /// SHA-256 over the reader's path and the sorted finger names enrolled for the user.
    public func enrolmentState() throws(AuthenticationFailure) -> Data {
        let (outcome, names) = enrolled()
        guard outcome >= 0, let device = names.first else { throw Self.failure(outcome) }
        var bytes = Array(device.utf8) + [0]
        for finger in names.dropFirst().sorted() { bytes += Array(finger.utf8) + [0] }
        return Data(SHA256.hash(bytes))
    }

    /// One verification: the enrolment state the match was made under, or why there was none.
    public func verify(reason: String) throws(AuthenticationFailure) -> Data {
        let state = try enrolmentState()
        let outcome = clavis_fprintd_verify(user, timeoutSeconds)
        guard outcome == CLAVIS_FPRINTD_MATCH.rawValue else { throw Self.failure(outcome) }
        return state
    }

    /// fprintd keeps no lockout of its own.
    public func passcodeSucceeded() {}

    /// fprintd's answer to `ListEnrolledFingers`: the outcome, then the reader's path and the finger names.
    private func enrolled() -> (outcome: Int32, names: [String]) {
        var buffer = [CChar](repeating: 0, count: 8192)
        let outcome = clavis_fprintd_enrolled(user, &buffer, buffer.count)
        guard outcome > 0 else { return (outcome, []) }
        let names = buffer[0..<Int(outcome)].split(separator: 0).map { name in
            String(decoding: name.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return (outcome, names)
    }

    /// The failure an fprintd outcome stands for. A disconnected or busy reader, or any error, is "not available",
    /// so an evaluation that allows the passcode falls back to it rather than ending as a cancel.
    private static func failure(_ outcome: Int32) -> AuthenticationFailure {
        switch outcome {
        case CLAVIS_FPRINTD_NO_MATCH.rawValue: .authenticationFailed
        case CLAVIS_FPRINTD_NOT_ENROLLED.rawValue: .biometryNotEnrolled
        case CLAVIS_FPRINTD_TIMED_OUT.rawValue: .userCancel
        default: .biometryNotAvailable
        }
    }
}
