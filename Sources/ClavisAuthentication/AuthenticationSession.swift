public import ClavisCore
public import FoundationEssentials
import Synchronization

/// The state behind one `LAContext`: what was proved, when, and under which biometric enrolment.
///
/// A successful evaluation leaves credentials in the session that stay fresh for the reuse window (see
/// `reuseWindow`) and until `invalidate()`: within the window, items whose access control they satisfy open
/// without asking again, and a new evaluation they satisfy succeeds without asking. State is kept behind a
/// `Mutex`; prompts run outside it.
///
/// The session's record here is what the client believes; the keychain service keeps its own record of what the
/// session proved there (the passcodes it verified, the matches of its sensor), under the session's `id`, and counts
/// a proof only as far as that record confirms it.
public final class AuthenticationSession: Sendable {
    /// The name of this session to the keychain service, carried in every proof.
    public let id: AuthenticationSessionID
    /// The authenticators this session uses.
    public let authenticators: Authenticators
    /// Where the session reads the time for its reuse window.
    public let clock: KeychainClock
    private let state = Mutex(State())

    /// How long credentials stay fresh when `reuseDuration` is 0: 10 seconds, enough for the keychain calls that
    /// follow an evaluation.
    public static let defaultReuseWindow: Double = 10
    /// The longest reuse window, Apple's `LATouchIDAuthenticationMaximumAllowableReuseDuration`.
    public static let maximumReuseWindow: Double = 300

    /// A session named `id` using `authenticators`, timing its reuse window by `clock`.
    public init(id: AuthenticationSessionID = .random(), authenticators: Authenticators, clock: KeychainClock = .system)
    {
        self.id = id
        self.authenticators = authenticators
        self.clock = clock
    }

    private struct State {
        var passcodeAt: ContinuousClock.Instant?
        var passcodeKeychain: Data?
        var biometryAt: ContinuousClock.Instant?
        var biometryEnrolment: Data?
        var domainState: Data?
        var biometryKind: BiometryKind = .none
        var applicationPassword: SecureBytes?
        var typedApplicationPassword: SecureBytes?
        var typedApplicationPasswordAt: ContinuousClock.Instant?
        var invalidated = false
        var reuseDuration: Double = 0
        var interactionNotAllowed = false
    }

    /// The context's `touchIDAuthenticationAllowableReuseDuration`, in seconds.
    public var reuseDuration: Double {
        get { state.withLock { $0.reuseDuration } }
        set { state.withLock { $0.reuseDuration = newValue } }
    }

    /// The context's `interactionNotAllowed`: evaluations that would ask the user fail with `notInteractive`.
    public var interactionNotAllowed: Bool {
        get { state.withLock { $0.interactionNotAllowed } }
        set { state.withLock { $0.interactionNotAllowed = newValue } }
    }

    /// How long credentials stay fresh: `reuseDuration` when positive (at most 300 s), else 10 s.
    public var reuseWindow: Duration {
        let seconds = reuseDuration
        guard seconds > 0 else { return .seconds(Self.defaultReuseWindow) }
        return .milliseconds(Int64(min(seconds, Self.maximumReuseWindow) * 1000))
    }

    /// The sensor's kind, known after `canEvaluate`.
    public var biometryKind: BiometryKind { state.withLock { $0.biometryKind } }

    /// The enrolment state seen by the last biometric evaluation or successful `canEvaluate(.biometrics)`.
    public var domainState: Data? { state.withLock { $0.domainState } }

    /// True after `invalidate()`.
    public var isInvalidated: Bool { state.withLock { $0.invalidated } }

    /// The fresh credentials, or `nil` when none are (or the session was invalidated). An application password the
    /// app set does not age (it stays until it is replaced, removed or the session invalidated); one the user typed
    /// lasts the reuse window.
    public var credentials: Credentials? {
        let window = reuseWindow
        let now = clock.now
        return state.withLock { state -> Credentials? in
            guard !state.invalidated else { return nil }
            let passcode = state.passcodeAt.map { now - $0 <= window } ?? false
            let biometry = state.biometryAt.map { now - $0 <= window } ?? false
            let typedIsFresh = state.typedApplicationPasswordAt.map { now - $0 <= window } ?? false
            let applicationPassword =
                state.applicationPassword ?? (typedIsFresh ? state.typedApplicationPassword : nil)
            guard passcode || biometry || applicationPassword != nil else { return nil }
            return Credentials(
                passcode: passcode, biometryEnrolment: biometry ? state.biometryEnrolment : nil,
                passcodeKeychain: passcode ? state.passcodeKeychain : nil, applicationPassword: applicationPassword,
                session: id)
        }
    }

    /// Sets (or with `nil` removes) the application password items with `applicationPassword` are opened with
    /// (`LAContext.setCredential(_:type:)`); false when the session was invalidated.
    @discardableResult
    public func setApplicationPassword(_ password: SecureBytes?) -> Bool {
        state.withLock { state in
            guard !state.invalidated else { return false }
            state.applicationPassword = password
            return true
        }
    }

    /// True while the app has set an application password (one the user typed does not count).
    public var hasApplicationPassword: Bool { state.withLock { $0.applicationPassword != nil } }

    /// Drops the application password the user typed, after an item refused it; true when the session then has
    /// none at all, so asking again makes sense (a password the app set is the app's to replace).
    public func forgetTypedApplicationPassword() -> Bool {
        state.withLock { state in
            let hadTyped = state.typedApplicationPassword != nil
            state.typedApplicationPassword = nil
            state.typedApplicationPasswordAt = nil
            return hadTyped && state.applicationPassword == nil && !state.invalidated
        }
    }

    /// How many application passwords one call may ask for: the prompt's number of tries.
    public var applicationPasswordAttempts: Int { max(1, authenticators.passcode.reader?.attempts ?? 1) }

    /// Ends the session: credentials are dropped (here and, when it recorded any, in the keychain service) and later
    /// evaluations fail with `invalidContext`.
    public func invalidate() {
        let proved = state.withLock { state in
            let proved = !state.invalidated && (state.passcodeAt != nil || state.biometryAt != nil)
            state.invalidated = true
            state.passcodeAt = nil
            state.biometryAt = nil
            state.biometryEnrolment = nil
            state.applicationPassword = nil
            state.typedApplicationPassword = nil
            state.typedApplicationPasswordAt = nil
            return proved
        }
        if proved { authenticators.endSession?(id) }
    }

    /// Tells whether `policy` could be evaluated now, without asking the user.
    ///
    /// - Throws: `invalidContext`, `passcodeNotSet`, `biometryNotAvailable`, `biometryNotEnrolled`,
    ///   `biometryLockout` (when the sensor can tell without an attempt: the scripted one can, fprintd cannot),
    ///   `companionNotAvailable`.
    public func canEvaluate(_ policy: Policy) throws(AuthenticationFailure) {
        let sensor = authenticators.sensor
        state.withLock { $0.biometryKind = sensor.kind }
        guard !isInvalidated else { throw .invalidContext }
        switch policy {
        case .companion: throw .companionNotAvailable
        case .ownerAuthentication:
            guard try verifier().hasPasscode else { throw .passcodeNotSet }
        case .biometrics:
            let enrolment = try sensor.enrolmentState()
            state.withLock { $0.domainState = enrolment }
            guard try verifier().hasPasscode else { throw .passcodeNotSet }
            if sensor.isLockedOut { throw .biometryLockout }
        }
    }

    /// The moment an evaluation was asked for, which may be before it runs (`LAContext` runs it on another
    /// thread): an evaluation asked for before `invalidate()` ends with `appCancel`, one asked for after it with
    /// `invalidContext`, however late the thread starts.
    public struct EvaluationStart: Sendable {
        fileprivate let sessionWasValid: Bool
    }

    /// Marks that an evaluation is asked for now.
    public func startEvaluation() -> EvaluationStart {
        EvaluationStart(sessionWasValid: !isInvalidated)
    }

    /// Evaluates `policy`, asking the user unless fresh credentials already satisfy it.
    /// - Parameter start: when the evaluation was asked for; `nil` means now.
    public func evaluate(_ policy: Policy, reason: String, startedAt start: EvaluationStart? = nil)
        throws(AuthenticationFailure)
    {
        try cancellable(start ?? startEvaluation()) { () throws(AuthenticationFailure) in
            try evaluateOnce(policy, reason: reason)
        }
    }

    private func evaluateOnce(_ policy: Policy, reason: String) throws(AuthenticationFailure) {
        let fresh = credentials
        switch policy {
        case .companion: throw .companionNotAvailable
        case .biometrics:
            if let enrolment = fresh?.biometryEnrolment, (try? authenticators.sensor.enrolmentState()) == enrolment {
                return
            }
            guard try verifier().hasPasscode else { throw .passcodeNotSet }
            try checkInteraction()
            try scanBiometry(reason: reason)
        case .ownerAuthentication:
            if let fresh, fresh.passcode || fresh.biometryEnrolment != nil { return }
            try biometryThenPasscode(reason: reason)
        }
    }

    /// Evaluates an item's access control: asks for what its conditions need until they are met.
    ///
    /// Under `.and` every condition must be met; otherwise any one. Biometry is tried first where it would do, and
    /// the passcode follows a failed or unavailable biometric check where a condition accepts it (Apple's fallback).
    /// `watch` is never met on Linux. `applicationPassword` is asked for (as Apple's dialog does) once the other
    /// conditions are met, when the session holds none; it is checked only by the item it opens.
    /// - Parameter boundEnrolment: for `biometryCurrentSet`, the enrolment state bound to the item; when the sensor's
    ///   enrolment differs, that condition can never be met (the item is invalidated: `authenticationFailed`).
    /// - Parameter forDeletion: the item is to be deleted: an invalidated `biometryCurrentSet` item asks for one
    ///   match under the current enrolment instead, so that the owner can remove what nothing can open any more.
    /// - Parameter applicationPasswordUse: `.seal` when the password is chosen for a new item: it is asked for
    ///   twice, and the two must match.
    /// - Parameter start: when the evaluation was asked for; `nil` means now.
    public func evaluate(
        flags: AccessControl.Flags, boundEnrolment: Data?, reason: String, forDeletion: Bool = false,
        applicationPasswordUse: KeychainError.ApplicationPasswordUse = .open, startedAt start: EvaluationStart? = nil
    ) throws(AuthenticationFailure) {
        try cancellable(start ?? startEvaluation()) { () throws(AuthenticationFailure) in
            try evaluateConstraints(
                flags: flags, boundEnrolment: boundEnrolment, reason: reason, forDeletion: forDeletion)
            if flags.contains(.applicationPassword) && !forDeletion && credentials?.applicationPassword == nil {
                try askApplicationPassword(reason: reason, use: applicationPasswordUse)
            }
        }
    }

    /// Asks for an application password (twice when choosing one) and keeps it for the reuse window.
    private func askApplicationPassword(reason: String, use: KeychainError.ApplicationPasswordUse)
        throws(AuthenticationFailure)
    {
        try checkInteraction()
        let subject = use == .seal ? "new application password" : "application password"
        let prompt = reason.isEmpty ? "\(subject.capitalizedFirst): " : "\(reason) (\(subject)): "
        let password: SecureBytes
        switch use {
        case .open:
            password = try authenticators.passcode.readApplicationPassword(prompt: prompt, interactive: true)
        case .seal:
            password = try authenticators.passcode.readNewApplicationPassword(
                prompt: prompt, confirmationPrompt: "Type the \(subject) again: ", interactive: true)
        }
        state.withLock { state in
            state.typedApplicationPassword = password
            state.typedApplicationPasswordAt = clock.now
        }
    }

    /// Runs one evaluation: `invalidContext` when the session was invalidated before it was asked for, and
    /// `appCancel` (Apple's answer) when the session is invalidated after that, whatever the prompt's outcome.
    private func cancellable(_ start: EvaluationStart, _ evaluation: () throws(AuthenticationFailure) -> Void)
        throws(AuthenticationFailure)
    {
        guard start.sessionWasValid else { throw .invalidContext }
        if isInvalidated { throw .appCancel }
        do {
            try evaluation()
        } catch {
            throw isInvalidated ? .appCancel : error
        }
        if isInvalidated { throw .appCancel }
    }

    private func evaluateConstraints(
        flags: AccessControl.Flags, boundEnrolment: Data?, reason: String, forDeletion: Bool
    ) throws(AuthenticationFailure) {
        let constraints = flags.constraints
        let requiresAll = flags.contains(.and)
        let conditions = flags.conditions
        guard !conditions.isEmpty else { return }
        func met(_ condition: AccessControl.Flags) -> Bool {
            AccessControl.evaluate(condition, boundBiometryEnrolment: boundEnrolment, proof: credentials?.proof)
                == .satisfied
        }
        func satisfied() -> Bool { requiresAll ? conditions.allSatisfy(met) : conditions.contains(where: met) }
        if satisfied() { return }

        var alive = conditions.filter { $0 != .watch }
        if constraints.contains(.biometryCurrentSet), let boundEnrolment,
            (try? authenticators.sensor.enrolmentState()) != boundEnrolment
        {
            alive.removeAll { $0 == .biometryCurrentSet }
        }
        if requiresAll ? alive.count < conditions.count : alive.isEmpty {
            if forDeletion && constraints.contains(.biometryCurrentSet) && !alive.contains(.biometryCurrentSet) {
                guard try verifier().hasPasscode else { throw .passcodeNotSet }
                try checkInteraction()
                try scanBiometry(reason: reason)
                return
            }
            if conditions.contains(.watch) && !conditions.contains(.biometryCurrentSet) {
                throw .companionNotAvailable
            }
            throw .authenticationFailed
        }
        guard try verifier().hasPasscode else { throw .passcodeNotSet }
        try checkInteraction()

        if requiresAll {
            if (alive.contains(.biometryAny) && !met(.biometryAny))
                || (alive.contains(.biometryCurrentSet) && !met(.biometryCurrentSet))
            {
                try scanBiometry(reason: reason)
            }
            if alive.contains(.devicePasscode) && !met(.devicePasscode) { try askPasscode(reason: reason) }
            if alive.contains(.userPresence) && !met(.userPresence) { try biometryThenPasscode(reason: reason) }
        } else {
            let biometric = alive.contains { $0 == .userPresence || $0 == .biometryAny || $0 == .biometryCurrentSet }
            let passcode = alive.contains { $0 == .userPresence || $0 == .devicePasscode }
            if biometric && passcode {
                try biometryThenPasscode(reason: reason)
            } else if biometric {
                try scanBiometry(reason: reason)
            } else {
                try askPasscode(reason: reason)
            }
        }
        guard satisfied() else { throw .authenticationFailed }
    }

    /// One biometric check; a match is recorded with its enrolment.
    private func scanBiometry(reason: String) throws(AuthenticationFailure) {
        let enrolment = try authenticators.sensor.verify(reason: reason)
        state.withLock { state in
            state.biometryAt = clock.now
            state.biometryEnrolment = enrolment
            state.domainState = enrolment
        }
    }

    /// Biometry when a sensor is usable, then the passcode after any failure but a cancellation.
    private func biometryThenPasscode(reason: String) throws(AuthenticationFailure) {
        guard try verifier().hasPasscode else { throw .passcodeNotSet }
        try checkInteraction()
        do {
            try scanBiometry(reason: reason)
            return
        } catch .userCancel {
            throw .userCancel
        } catch .systemCancel {
            throw .systemCancel
        } catch {
            // No match, fallback chosen, locked out, no sensor or nothing enrolled: the passcode, as Apple offers.
        }
        try askPasscode(reason: reason)
    }

    /// Asks for the keychain passcode; success ends a biometric lockout.
    private func askPasscode(reason: String) throws(AuthenticationFailure) {
        let prompt = reason.isEmpty ? "Keychain passcode: " : "\(reason) (keychain passcode): "
        let verifier = try verifier()
        let identity = try authenticators.passcode.authenticate(prompt: prompt, verifier: verifier, interactive: true)
        state.withLock { state in
            state.passcodeAt = clock.now
            state.passcodeKeychain = identity
        }
        authenticators.sensor.passcodeSucceeded()
    }

    private func checkInteraction() throws(AuthenticationFailure) {
        if interactionNotAllowed { throw .notInteractive }
    }

    private func verifier() throws(AuthenticationFailure) -> any PasscodeVerifier {
        do {
            return try authenticators.verifier()
        } catch {
            throw .authenticationFailed
        }
    }
}

extension String {
    /// The string with its first letter in upper case.
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
