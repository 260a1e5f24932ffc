public import ClavisCore
public import FoundationEssentials

// What an authentication session evaluates and what it holds afterwards.
extension AuthenticationSession {
    /// What the session can be asked to evaluate (Apple's `LAPolicy`, by meaning).
    public enum Policy: Sendable, Hashable {
        /// Biometry only.
        case biometrics
        /// Biometry, else the passcode.
        case ownerAuthentication
        /// A paired companion device, which Linux never has.
        case companion
    }

    /// The credentials the session holds now, fresh within the reuse window.
    public struct Credentials: Sendable, Hashable {
        /// The passcode was verified.
        public var passcode: Bool
        /// The enrolment state a biometric match was made under.
        public var biometryEnrolment: Data?

        /// The identity of the keychain that verified the passcode.
        public var passcodeKeychain: Data?
        /// The application password set on the session or typed for it.
        public var applicationPassword: SecureBytes?
        /// The session the credentials belong to.
        public var session: AuthenticationSessionID

        /// The credentials as the proof the service checks against its record of the session.
        public var proof: AuthenticationProof {
            AuthenticationProof(
                passcode: passcode, biometryEnrolment: biometryEnrolment, passcodeKeychain: passcodeKeychain,
                applicationPassword: applicationPassword, session: session)
        }
    }
}
