import ClavisAuthentication
import ClavisClient
import ClavisCore
import Security

/// A context for evaluating authentication policies (Apple's `LAContext`).
///
/// Authenticators come from the environment: biometry from the scripted sensor (`CLAVIS_BIOMETRY_SCRIPT`) or
/// fprintd, the passcode from an askpass program (`CLAVIS_ASKPASS`) or the controlling terminal; the passcode is
/// the keychain's, checked by the keychain (with its lockout). A successful evaluation leaves credentials in the
/// context, fresh for its reuse window (`touchIDAuthenticationAllowableReuseDuration` seconds when positive, at
/// most 300; 10 seconds when it is 0) and until `invalidate()`: passed as `kSecUseAuthenticationContext`, the
/// context opens items whose access control those credentials satisfy without asking again, and a new evaluation
/// they satisfy succeeds at once.
open class LAContext: NSObject, _ClavisAuthenticationContext {
    /// The session behind the context.
    public let clavisSession: AuthenticationSession

    /// Creates a context with the authenticators this task's configuration names, checking passcodes with its
    /// keychain.
    public override init() {
        clavisSession = KeychainClient.makeAuthenticationSession()
        super.init()
    }

    /// The reason shown to the user when a keychain item asks for authentication through this context.
    open var localizedReason: String = ""
    /// The title of the fallback button; empty hides it (Clavis has no buttons: kept for source compatibility).
    open var localizedFallbackTitle: String?
    /// The title of the cancel button (kept for source compatibility).
    open var localizedCancelTitle: String?

    /// How long credentials from an evaluation stay usable, in seconds; at most
    /// `LATouchIDAuthenticationMaximumAllowableReuseDuration` (larger values are clamped); 0 means Clavis's
    /// default of 10 seconds.
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { clavisSession.reuseDuration }
        set {
            clavisSession.reuseDuration = min(max(newValue, 0), LATouchIDAuthenticationMaximumAllowableReuseDuration)
        }
    }

    /// Fail with `LAError.notInteractive` instead of asking the user.
    open var interactionNotAllowed: Bool {
        get { clavisSession.interactionNotAllowed }
        set { clavisSession.interactionNotAllowed = newValue }
    }

    /// The kind of biometric sensor; `.none` until `canEvaluatePolicy(_:error:)` has been called, as on Apple
    /// platforms. A fingerprint reader is `.touchID`.
    open var biometryType: LABiometryType {
        switch clavisSession.biometryKind {
        case .none: .none
        case .fingerprint: .touchID
        case .face: .faceID
        case .iris: .opticID
        }
    }

    /// A value that changes when the enrolled biometry changes (SHA-256 of the enrolled set); `nil` until a
    /// biometric evaluation or a successful `canEvaluatePolicy` of a biometric policy.
    open var evaluatedPolicyDomainState: Data? { clavisSession.domainState }

    /// Tells whether `policy` can be evaluated now; when not, sets `error` to an `LAError`.
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
        do throws(AuthenticationFailure) {
            try clavisSession.canEvaluate(Self.sessionPolicy(policy))
            return true
        } catch let failure {
            error?.pointee = LAError(failure) as NSError
            return false
        }
    }

    /// Evaluates `policy`, asking for biometry or the passcode, then calls `reply` (on another thread) with the
    /// outcome.
    open func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let session = clavisSession
        let sessionPolicy = Self.sessionPolicy(policy)
        let start = session.startEvaluation()
        DispatchQueue.global().async {
            do throws(AuthenticationFailure) {
                try session.evaluate(sessionPolicy, reason: localizedReason, startedAt: start)
                reply(true, nil)
            } catch {
                reply(false, LAError(error))
            }
        }
    }

    /// Evaluates `policy`; throws an `LAError` on failure.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    /// Evaluates an access control for `operation`, asking for what its flags need, then calls `reply`.
    open func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String,
        reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let session = clavisSession
        let policy = accessControl.policy
        let start = session.startEvaluation()
        DispatchQueue.global().async {
            do throws(AuthenticationFailure) {
                try session.evaluate(
                    flags: policy.flags, boundEnrolment: policy.boundBiometryEnrolment, reason: localizedReason,
                    startedAt: start)
                reply(true, nil)
            } catch {
                reply(false, LAError(error))
            }
        }
    }

    /// Evaluates an access control for `operation`; throws an `LAError` on failure.
    open func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String
    ) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            evaluateAccessControl(accessControl, operation: operation, localizedReason: localizedReason) {
                success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    /// Sets (or with `nil` removes) a credential: the application password that opens items whose access control
    /// has `applicationPassword`, and seals those added through this context. False for an invalidated context,
    /// an empty password or a type Clavis does not support.
    open func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        guard type == .applicationPassword else { return false }
        guard let credential else { return clavisSession.setApplicationPassword(nil) }
        guard !credential.isEmpty else { return false }
        return clavisSession.setApplicationPassword(SecureBytes(credential))
    }

    /// True when a credential of `type` is set.
    open func isCredentialSet(_ type: LACredentialType) -> Bool {
        type == .applicationPassword && clavisSession.hasApplicationPassword
    }

    /// Ends the context: its credentials are dropped and later evaluations fail with `LAError.invalidContext`.
    open func invalidate() {
        clavisSession.invalidate()
    }

    private static func sessionPolicy(_ policy: LAPolicy) -> AuthenticationSession.Policy {
        switch policy {
        case .deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrWatch: .biometrics
        case .deviceOwnerAuthentication: .ownerAuthentication
        case .deviceOwnerAuthenticationWithWatch, .deviceOwnerAuthenticationWithWristDetection: .companion
        }
    }
}

/// The operation an access control is evaluated for (Apple's `LAAccessControlOperation`).
public enum LAAccessControlOperation: Int, Sendable {
    /// Creating an item.
    case createItem = 0
    /// Using an item.
    case useItem = 1
    /// Creating a key.
    case createKey = 2
    /// Signing with a key.
    case useKeySign = 3
    /// Decrypting with a key.
    case useKeyDecrypt = 4
    /// Key exchange with a key.
    case useKeyKeyExchange = 5
}

extension LAError {
    /// The `LAError` for an authenticator's failure.
    init(_ failure: AuthenticationFailure) {
        self.init(Code(rawValue: failure.rawValue) ?? .authenticationFailed)
    }
}
