public import FoundationEssentials

extension AccessControl {
    /// The outcome of checking a proof against a policy.
    public enum Evaluation: Sendable, Hashable {
        /// The proof satisfies the policy.
        case satisfied
        /// The policy needs an authentication the proof does not carry.
        case needsAuthentication
        /// The policy can never be satisfied again: its biometric enrolment changed, and nothing else opens it.
        case invalidated
    }

    /// The conditions to prove: the flags without the conjunctions, `privateKeyUsage` and `applicationPassword`
    /// (which Apple defines as an extra encryption of the item, "in addition to any constraints").
    public var constraints: Flags { flags.constraints }

    /// True when the item's secret is also encrypted under a key derived from an application password.
    public var usesApplicationPassword: Bool { flags.contains(.applicationPassword) }

    /// What an add of an item with this access control must be given: its application password only (creating an
    /// item asks for no other authentication).
    public var applicationPasswordPart: AccessControl {
        AccessControl(protection: protection, flags: flags.intersection(.applicationPassword))
    }

    /// The same policy without `applicationPassword` (what a delete must satisfy: removing an item decrypts
    /// nothing).
    public var withoutApplicationPassword: AccessControl {
        var policy = self
        policy.flags.remove(.applicationPassword)
        return policy
    }

    /// True when using the item needs some authentication.
    public var requiresAuthentication: Bool { !constraints.isEmpty || usesApplicationPassword }

    /// True when a condition can only be met while the keychain has a passcode (on Apple devices biometry needs a
    /// passcode too).
    public var requiresPasscode: Bool {
        !constraints.intersection([.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode]).isEmpty
    }

    /// Checks the policy as Apple does when an item is stored with it.
    ///
    /// - Throws: `param` for unknown bits, both `.or` and `.and`, several conditions without a conjunction, or
    ///   `privateKeyUsage` on an item that is not a key.
    public func validate(for itemClass: ItemClass) throws(KeychainError) {
        try validate()
        if constraints.rawValue.nonzeroBitCount > 1 && flags.intersection([.or, .and]).isEmpty {
            throw KeychainError(.param, "access control with several conditions needs .or or .and")
        }
        if flags.contains(.privateKeyUsage) && itemClass != .key {
            throw KeychainError(.param, "privateKeyUsage applies to keys only")
        }
    }

    /// The access control `attributes` carry (`accc`); `nil` when they carry none.
    ///
    /// - Throws: `param` for a value that is not data, or not an access control.
    public static func carried(by attributes: [AttributeKey: AttributeValue]) throws(KeychainError) -> AccessControl? {
        guard let value = attributes[.accessControl] else { return nil }
        guard case .data(let encoded) = value else { throw KeychainError(.param, "attribute 'accc' must be data") }
        do {
            return try AccessControl(encoded: encoded)
        } catch {
            throw KeychainError(.param, "attribute 'accc' is not an access control")
        }
    }

    /// Checks the policy as it is stored with an item of `itemClass` in `protection`: valid for the class (as
    /// `validate(for:)`), of the item's protection class, and a `biometryCurrentSet` condition bound to an enrolment.
    ///
    /// - Throws: `param` for a policy the item cannot have, `notAvailable` for an unbound `biometryCurrentSet`.
    public func checkStored(with itemClass: ItemClass, in protection: ProtectionClass) throws(KeychainError) {
        try validate(for: itemClass)
        guard self.protection == protection else {
            throw KeychainError(.param, "the access control's protection class differs from the item's")
        }
        if constraints.contains(.biometryCurrentSet) && boundBiometryEnrolment == nil {
            throw KeychainError(.notAvailable, "biometryCurrentSet needs an enrolled biometric set to bind to")
        }
    }

    /// Checks `proof` against the policy: all conditions under `.and`, any one otherwise.
    ///
    /// `watch` is never met on Linux. `applicationPassword` is met by a proof carrying a password, whichever it is:
    /// a wrong one fails later, when it does not decrypt the secret.
    public func evaluate(_ proof: AuthenticationProof?) -> Evaluation {
        Self.evaluate(flags, boundBiometryEnrolment: boundBiometryEnrolment, proof: proof)
    }

    /// Checks `proof` against `flags` (with the enrolment a `biometryCurrentSet` condition is bound to): the one
    /// rule the store enforces and an authenticator aims for.
    public static func evaluate(_ flags: Flags, boundBiometryEnrolment: Data?, proof: AuthenticationProof?)
        -> Evaluation
    {
        let outcome = evaluateConstraints(flags, boundBiometryEnrolment: boundBiometryEnrolment, proof: proof)
        if outcome == .satisfied && flags.contains(.applicationPassword) && proof?.applicationPassword == nil {
            return .needsAuthentication
        }
        return outcome
    }

    private static func evaluateConstraints(_ flags: Flags, boundBiometryEnrolment: Data?, proof: AuthenticationProof?)
        -> Evaluation
    {
        let conditions = flags.conditions
        guard !conditions.isEmpty else { return .satisfied }
        let outcomes = conditions.map { outcome(of: $0, proof ?? AuthenticationProof(), bound: boundBiometryEnrolment) }
        if flags.contains(.and) {
            if outcomes.allSatisfy({ $0 == .satisfied }) { return .satisfied }
            return outcomes.contains(.invalidated) ? .invalidated : .needsAuthentication
        }
        if outcomes.contains(.satisfied) { return .satisfied }
        return outcomes.allSatisfy({ $0 == .invalidated }) ? .invalidated : .needsAuthentication
    }

    private static func outcome(of condition: Flags, _ proof: AuthenticationProof, bound: Data?) -> Evaluation {
        switch condition {
        case .userPresence:
            return proof.passcode || proof.biometryEnrolment != nil ? .satisfied : .needsAuthentication
        case .biometryAny:
            return proof.biometryEnrolment != nil ? .satisfied : .needsAuthentication
        case .biometryCurrentSet:
            guard let enrolment = proof.biometryEnrolment else { return .needsAuthentication }
            guard let bound else { return .invalidated }
            return enrolment == bound ? .satisfied : .invalidated
        case .devicePasscode:
            return proof.passcode ? .satisfied : .needsAuthentication
        default:
            return .needsAuthentication
        }
    }
}

extension AccessControl.Flags {
    /// The flags that shape a policy without being a condition to prove.
    public static let modifiers: Self = [.or, .and, .privateKeyUsage, .applicationPassword]

    /// Every condition, in the order authenticators consider them.
    public static let allConditions: [Self] = [
        .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .watch,
    ]

    /// These flags without the modifiers.
    public var constraints: Self { subtracting(Self.modifiers) }

    /// The conditions these flags name, one flag each.
    public var conditions: [Self] { Self.allConditions.filter { contains($0) } }
}
