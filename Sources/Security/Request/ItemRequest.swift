import ClavisClient
import ClavisCore

/// One query or attribute dictionary of a keychain call, read into typed values.
///
/// Parsing never traps: every malformed input is a `KeychainError` carrying Apple's status.
struct ItemRequest {
    /// `kSecClass`, or the class named by `kSecValuePersistentRef` when the class is absent.
    var itemClass: ItemClass
    /// Attributes to store or to match; `agrp` and `sync` are kept apart below.
    var attributes: [AttributeKey: AttributeValue] = [:]
    /// `kSecAttrAccessGroup`, when given.
    var accessGroup: String?
    /// `kSecAttrSynchronizable`: `.no` when absent, `.any` for `kSecAttrSynchronizableAny`.
    var synchronizable: SynchronizableFilter = .no
    /// `kSecValuePersistentRef`, when given.
    var persistentReference: PersistentReference?
    /// `kSecMatchLimit`, when given.
    var limit: MatchLimit?
    /// The `kSecReturn*` keys set to true.
    var returns: ReturnKinds = []
    /// `kSecValueData`, when given.
    var secret: Data?
    /// For a key or certificate added by `SecItemAdd`: its external representation or DER, from `kSecValueRef` or
    /// `kSecValueData`.
    var keySecret: SecureBytes?
    /// `kSecAttrAccessControl`, when given.
    var accessControl: AccessControl?
    /// `kSecAttrAccessible`, or the protection of `kSecAttrAccessControl`, when either is given.
    var protection: ProtectionClass?
    /// How the call authenticates for access-controlled items: `kSecUseAuthenticationContext`,
    /// `kSecUseOperationPrompt`, `kSecUseAuthenticationUI`.
    var authentication = AuthenticationOptions()

    /// The most entries a dictionary may hold; Apple's keychain knows fewer keys than this.
    static let maximumEntries = 128

    /// Reads `dictionary` as the query or attributes of `operation`, with `defaultRules` where the dictionary does
    /// not choose (`Compatibility`): those of the call's own configuration, read once per call.
    ///
    /// - Throws: `param` for a missing class, a value of the wrong type or a key not valid here;
    ///   `noSuchClass` for an unknown class; `noSuchAttr` for an attribute the class lacks;
    ///   `param` also for adding an identity other than as a `SecIdentity`; `dataTooLarge` for oversized values.
    init(
        _ dictionary: NSDictionary, for operation: Operation,
        defaultRules: Compatibility = .configuredDefault(.current)
    ) throws(KeychainError) {
        guard dictionary.count <= Self.maximumEntries else {
            throw KeychainError(.param, "the dictionary has more than \(Self.maximumEntries) entries")
        }
        var query = try QueryDictionary(dictionary)
        let rules = Compatibility.rules(for: query, defaultRules: defaultRules)

        if let bytes = try query.takeData(.persistentReference) {
            guard operation != .add else {
                throw KeychainError(.param, "kSecValuePersistentRef cannot be given to SecItemAdd")
            }
            persistentReference = PersistentReference(bytes: Array(bytes))
        }
        itemClass = try Self.itemClass(&query, persistentReference: persistentReference)
        guard itemClass.isStorable || operation != .add else {
            throw KeychainError(.param, "an identity is added as a SecIdentity (kSecValueRef)")
        }

        for (key, kind) in ReturnKinds.keys {
            if try query.takeBool(key) == true { returns.insert(kind) }
        }
        if let value = query.take(.matchLimit) {
            limit = try Self.matchLimit(value)
        }
        try rules.check(returns: returns, limit: limit, for: operation)
        if let data = try query.takeData(.valueData) {
            guard data.count <= KeychainLimits.secretBytes else {
                throw KeychainError(.dataTooLarge, "kSecValueData is larger than \(KeychainLimits.secretBytes) bytes")
            }
            secret = data
        }
        let reference = try Self.valueReference(&query, of: itemClass)
        accessGroup = try query.takeString(.accessGroup)
        if let value = query.take(.synchronizable) {
            synchronizable = try Self.synchronizable(value, for: operation)
        } else if persistentReference != nil && operation != .add {
            // A persistent reference names one item, synchronizable or not.
            synchronizable = .any
        }
        (accessControl, protection) = try Self.protection(&query)
        authentication = try AuthenticationOptions(&query, for: operation)
        // A locked iOS device answers errSecInteractionNotAllowed; only the macOS file keychain asks to unlock.
        authentication.asksToUnlock = rules == .macOS
        guard itemClass.isStorable else {
            // Identities are never stored (a search pairs certificates with keys): an update or delete reads the keys
            // every class shares and finds nothing, so the rest (their own attributes and match keys) is not read.
            return
        }
        try readAttributes(&query, for: operation, reference: reference)
    }

    /// `kSecValueRef` of a stored class: a `SecKey` for a key, a `SecCertificate` for a certificate.
    private static func valueReference(_ query: inout QueryDictionary, of itemClass: ItemClass)
        throws(KeychainError) -> ValueReference?
    {
        guard let value = query.take(.valueReference), itemClass.isStorable else { return nil }
        if itemClass == .key, let key = value.object as? SecKey { return .key(key) }
        if itemClass == .certificate, let certificate = value.object as? SecCertificate {
            return .certificate(certificate)
        }
        throw KeychainError(.param, "kSecValueRef must be a SecKey of a key or a SecCertificate of a certificate")
    }

    /// What `kSecValueRef` names of a stored item.
    private enum ValueReference {
        case key(SecKey)
        case certificate(SecCertificate)

        var key: SecKey? { if case .key(let key) = self { key } else { nil } }
        var certificate: SecCertificate? {
            if case .certificate(let certificate) = self { certificate } else { nil }
        }
    }

    /// Reads the attributes of a stored class: the dictionary's own, those a key or certificate given by reference
    /// or data implies, the protection and, for an add, the access control; then checks them against the class.
    private mutating func readAttributes(
        _ query: inout QueryDictionary, for operation: Operation, reference: ValueReference?
    ) throws(KeychainError) {
        try Self.skipIgnoredKeys(&query)
        let keyCodes = itemClass == .key ? try KeyItem.takeCodes(&query) : [:]
        attributes = try query.takeAttributes(of: itemClass, droppingDates: operation == .add)
        attributes.merge(keyCodes) { _, code in code }
        if itemClass == .key {
            if operation == .add {
                (attributes, keySecret) = try KeyItem.forAdd(
                    reference: reference?.key, data: secret, attributes: attributes)
                secret = nil
            } else if let key = reference?.key {
                attributes.merge(KeyItem.matching(key)) { _, derived in derived }
            }
        }
        if itemClass == .certificate {
            if operation == .add {
                (attributes, keySecret) = try CertificateItem.forAdd(
                    reference: reference?.certificate, data: secret, attributes: attributes)
                secret = nil
            } else if let certificate = reference?.certificate {
                attributes.merge(CertificateItem.matching(certificate)) { _, derived in derived }
            }
        }
        if let protection { attributes[.accessible] = .string(protection.rawValue) }
        if operation == .add, let policy = accessControl {
            // The keychain service binds a biometryCurrentSet policy to its own sensor's enrolment.
            try policy.validate(for: itemClass)
            attributes[.accessControl] = .data(policy.encoded)
        }
        try itemClass.validate(attributes)
    }

    /// Reads `kSecAttrAccessible` and `kSecAttrAccessControl`, which must agree when both are given.
    static func protection(_ query: inout QueryDictionary) throws(KeychainError)
        -> (AccessControl?, ProtectionClass?)
    {
        var accessControl: AccessControl?
        if let value = query.take(.accessControl) {
            guard let object = value.object as? SecAccessControl else {
                throw KeychainError(.param, "kSecAttrAccessControl must be a SecAccessControl")
            }
            accessControl = object.policy
        }
        var accessible: ProtectionClass?
        if let code = try query.takeString(.accessible) {
            guard let named = ProtectionClass(rawValue: code) else {
                throw KeychainError(.param, "kSecAttrAccessible '\(code.prefix(16))' is not a kSecAttrAccessible value")
            }
            accessible = named
        }
        if let accessControl, let accessible, accessControl.protection != accessible {
            throw KeychainError(.param, "kSecAttrAccessible and kSecAttrAccessControl name different protections")
        }
        return (accessControl, accessControl?.protection ?? accessible)
    }

    /// The item class named by `kSecClass`, or by the persistent reference when the class is absent.
    private static func itemClass(_ query: inout QueryDictionary, persistentReference: PersistentReference?)
        throws(KeychainError) -> ItemClass
    {
        guard let code = try query.takeString(.itemClass) else {
            guard let persistentReference else { throw KeychainError(.param, "the query has no kSecClass") }
            guard let named = persistentReference.itemClass else {
                throw KeychainError(.itemNotFound, "kSecValuePersistentRef names no item")
            }
            return named
        }
        guard let named = ItemClass(rawValue: code) else {
            throw KeychainError(.noSuchClass, "'\(code.prefix(16))' is not a keychain item class")
        }
        return named
    }

    /// `kSecMatchLimitOne`, `kSecMatchLimitAll` or a positive number.
    private static func matchLimit(_ value: QueryValue) throws(KeychainError) -> MatchLimit {
        if let name = value.string {
            if name == kSecMatchLimitOne as String { return .one }
            if name == kSecMatchLimitAll as String { return .all }
            throw KeychainError(.param, "kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a number")
        }
        let count = try ValueDecoding.integer(value, key: RequestKey.matchLimit.name)
        guard count >= 1 else { throw KeychainError(.param, "kSecMatchLimit must be at least 1") }
        return count == 1 ? .one : .count(Int(clamping: count))
    }

    /// A boolean, or `kSecAttrSynchronizableAny` outside `SecItemAdd`.
    private static func synchronizable(_ value: QueryValue, for operation: Operation) throws(KeychainError)
        -> SynchronizableFilter
    {
        if let name = value.string {
            guard name == kSecAttrSynchronizableAny as String, operation != .add else {
                throw KeychainError(.param, "kSecAttrSynchronizable must be a boolean here")
            }
            return .any
        }
        return try ValueDecoding.bool(value, key: RequestKey.synchronizable.name) ? .yes : .no
    }

    /// Removes the keys Clavis accepts and ignores, checking their types; refuses search options it lacks.
    private static func skipIgnoredKeys(_ query: inout QueryDictionary) throws(KeychainError) {
        // Accepted and ignored: there is only the data-protection keychain.
        _ = try query.takeBool(.dataProtectionKeychain)
        _ = try query.takeBool(.matchCaseInsensitive)
        _ = query.take(.callerName)
        if let name = query.firstKey(where: { $0.hasPrefix("m_") || $0.hasPrefix("u_") }) {
            throw KeychainError(.unimplemented, "'\(name.prefix(64))' is not supported for password items")
        }
    }
}
