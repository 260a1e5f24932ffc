public import FoundationEssentials

/// What a caller proved before a request on an access-controlled item: handed to the store with the request.
///
/// A client sends what its `LAContext` believes, naming the context's session; the keychain service keeps the
/// passcode and biometry parts only where its own record of that session confirms them (`AuthenticationLedger`),
/// so no client can vouch for itself. The application password is the user's input, checked by the item it opens.
public struct AuthenticationProof: Sendable, Hashable {
    /// The authentication session (`LAContext`) the proof comes from; `nil` for none.
    public var session: AuthenticationSessionID?
    /// The keychain passcode was entered and verified.
    public var passcode: Bool
    /// The identity (`Keychain.identity`) of the keychain whose passcode was verified; another keychain ignores the
    /// passcode part of the proof. `nil` leaves the proof unbound, for callers that verified it themselves.
    public var passcodeKeychain: Data?
    /// The enrolment state a biometric match was made under (`LAContext.evaluatedPolicyDomainState`); `nil` when
    /// no biometric match was made.
    public var biometryEnrolment: Data?
    /// The application password (`LAContext.setCredential(_:type: .applicationPassword)`, or typed by the user)
    /// for items whose access control has `applicationPassword`; `nil` when none was given. It is not checked
    /// before use: a wrong one fails to decrypt the item's secret.
    public var applicationPassword: SecureBytes?

    /// Creates a proof.
    public init(
        passcode: Bool = false, biometryEnrolment: Data? = nil, passcodeKeychain: Data? = nil,
        applicationPassword: SecureBytes? = nil, session: AuthenticationSessionID? = nil
    ) {
        self.session = session
        self.passcode = passcode
        self.biometryEnrolment = biometryEnrolment
        self.passcodeKeychain = passcodeKeychain
        self.applicationPassword = applicationPassword
    }

    /// The proof as keychain `identity` may use it: without the passcode when that was verified by another keychain.
    public func accepted(by identity: Data) -> AuthenticationProof {
        guard passcode, let passcodeKeychain, passcodeKeychain != identity else { return self }
        var narrowed = self
        narrowed.passcode = false
        return narrowed
    }
}

/// What a query does with items whose access control needs an authentication it was not given.
public enum UnauthenticatedItemPolicy: Sendable, Hashable {
    /// Stop at such an item and answer its policy (`ServiceAnswer.needsAuthentication`); a caller that may not ask
    /// reports it as `interactionNotAllowed`.
    case fail
    /// Leave such items out of the results (`kSecUseAuthenticationUISkip`).
    case skip
}
