/// A context for evaluating authentication policies (Apple's `LAContext`).
///
/// The names are Apple's so that code importing LocalAuthentication compiles; authenticators (passcode, biometric
/// sensors) arrive with the access-control issue. Until then no policy can be evaluated: `canEvaluatePolicy`
/// answers false with `LAError.biometryNotAvailable` or `.passcodeNotSet`, and `evaluatePolicy` fails likewise.
open class LAContext: NSObject {
    /// Creates a context.
    public override init() { super.init() }

    /// The reason shown to the user.
    open var localizedReason: String = ""
    /// The title of the fallback button; empty hides it.
    open var localizedFallbackTitle: String?
    /// The title of the cancel button.
    open var localizedCancelTitle: String?
    /// How long a successful device unlock may stand in for a biometric check, in seconds.
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0
    /// Fail instead of asking the user.
    open var interactionNotAllowed: Bool = false
    /// The kind of biometric sensor available.
    open var biometryType: LABiometryType { .none }
    /// A value that changes when the enrolled biometry changes; `nil` without biometry.
    open var evaluatedPolicyDomainState: Data? { nil }

    /// Tells whether `policy` can be evaluated now; when not, sets `error` to an `LAError`.
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
        error?.pointee = LAError(Self.unavailableCode(for: policy)) as NSError
        return false
    }

    /// Evaluates `policy`, then calls `reply` with the outcome.
    open func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        reply(false, LAError(Self.unavailableCode(for: policy)))
    }

    /// Evaluates `policy`; throws an `LAError` on failure.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        throw LAError(Self.unavailableCode(for: policy))
    }

    /// Ends the context; later evaluations fail with `LAError.invalidContext`.
    open func invalidate() {}

    private static func unavailableCode(for policy: LAPolicy) -> LAError.Code {
        policy == .deviceOwnerAuthentication ? .passcodeNotSet : .biometryNotAvailable
    }
}
