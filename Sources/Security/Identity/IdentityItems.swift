import ClavisCore

/// `kSecClassIdentity` in the four keychain calls. An identity is never stored itself: it is each stored certificate
/// whose public key hash (`pkhh`) is the application label (`klbl`) of a stored private key in the caller's groups,
/// so these calls run the certificate and key calls they stand for.
enum IdentityItems {
    /// Keys of a query that say how the call authenticates, passed on to the key calls.
    private static let authenticationKeys = [
        kSecUseAuthenticationContext, kSecUseOperationPrompt, kSecUseAuthenticationUI,
    ].map { $0 as String }

    /// Keys of an added identity's dictionary that the private key takes as well as the certificate.
    private static let sharedAddKeys =
        [
            kSecAttrAccessGroup, kSecAttrAccessible, kSecAttrAccessControl, kSecAttrSynchronizable, kSecAttrLabel,
        ].map { $0 as String } + authenticationKeys

    /// A stored certificate and its private key: their attributes and persistent references, and the references
    /// when they were asked for.
    private struct Pair {
        var certificate: [String: Any]
        var key: [String: Any]
    }

    /// `SecItemAdd` of a `SecIdentity` (`kSecValueRef`): stores its certificate with the caller's attributes, then its
    /// private key in the same group and protection, as Apple does. The certificate being stored already is
    /// `errSecDuplicateItem`; the key being stored already is not (it pairs with the new certificate).
    static func add(_ attributes: [String: Any], identity: SecIdentity, _ result: UnsafeMutablePointer<CFTypeRef?>?)
        throws(KeychainError)
    {
        var certificate = attributes
        certificate[kSecClass as String] = kSecClassCertificate
        certificate[kSecValueRef as String] = identity.certificate
        var key = attributes.filter { sharedAddKeys.contains($0.key) }
        key[kSecClass as String] = kSecClassKey
        key[kSecValueRef as String] = identity.privateKey
        try ItemOperations.add(NSDictionary(dictionary: certificate), result)
        do throws(KeychainError) {
            try ItemOperations.add(NSDictionary(dictionary: key), nil)
        } catch  where error.code == .duplicateItem {
            // The key was stored before; the new certificate pairs with it.
        } catch {
            try? ItemOperations.delete(
                NSDictionary(dictionary: [
                    kSecClass as String: kSecClassCertificate, kSecValueRef as String: identity.certificate,
                ]))
            throw error
        }
        if let result, result.pointee is SecCertificate { result.pointee = identity }
    }

    /// `SecItemCopyMatching` for identities: the query's attributes select certificates; each one with a private
    /// key is an identity, returned as a `SecIdentity` (`kSecReturnRef`), the key's attributes with the
    /// certificate's over them (`kSecReturnAttributes`), the certificate's persistent reference
    /// (`kSecReturnPersistentRef`, which a later identity query may name) or its DER (`kSecReturnData`).
    static func copyMatching(_ query: NSDictionary, _ request: ItemRequest, _ result: UnsafeMutablePointer<CFTypeRef?>?)
        throws(KeychainError)
    {
        let limit = request.limit ?? .one
        let pairs = try find(
            query, withReferences: request.returns.contains(.reference), withData: request.returns.contains(.data),
            limit: limit)
        guard let result else { return }
        let values = pairs.map { value(for: $0, returns: request.returns) }
        guard !request.returns.isEmpty else { return }
        let many = limit.maximum.map { $0 > 1 } ?? true
        result.pointee = many ? NSArray(array: values) : values.first
    }

    /// `SecItemDelete` for identities: deletes each matching identity's certificate and private key, as Apple does.
    static func delete(_ query: NSDictionary) throws(KeychainError) {
        for pair in try find(query, withReferences: false, withData: false, limit: .all) {
            for stored in [pair.certificate, pair.key] {
                guard let reference = stored[kSecValuePersistentRef as String] else { continue }
                do throws(KeychainError) {
                    try ItemOperations.delete(NSDictionary(dictionary: [kSecValuePersistentRef as String: reference]))
                } catch  where error.code == .itemNotFound {
                    // Its key paired with another certificate too, and went with it.
                }
            }
        }
    }

    /// The identities `query` selects, at most `limit`; `errSecItemNotFound` when there are none.
    private static func find(_ query: NSDictionary, withReferences: Bool, withData: Bool, limit: MatchLimit)
        throws(KeychainError) -> [Pair]
    {
        var given: [String: Any] = [:]
        for case (let name as String, let value) in query {
            given[name] = value
        }
        var certificates = given.filter { !$0.key.hasPrefix("r_") && $0.key != kSecMatchLimit as String }
        certificates[kSecClass as String] = kSecClassCertificate
        if let identity = given[kSecValueRef as String] as? SecIdentity {
            certificates[kSecValueRef as String] = identity.certificate
        }
        certificates[kSecMatchLimit as String] = kSecMatchLimitAll
        certificates[kSecReturnAttributes as String] = true
        certificates[kSecReturnPersistentRef as String] = true
        if withReferences { certificates[kSecReturnRef as String] = true }
        if withData { certificates[kSecReturnData as String] = true }
        var found: CFTypeRef?
        try ItemOperations.copyMatching(NSDictionary(dictionary: certificates), &found)

        var pairs: [Pair] = []
        for case let certificate as [String: Any] in (found as? NSArray) ?? [] {
            if let maximum = limit.maximum, pairs.count >= maximum { break }
            guard let hash = certificate[kSecAttrPublicKeyHash as String] as? Data else { continue }
            var key = given.filter { authenticationKeys.contains($0.key) }
            key[kSecClass as String] = kSecClassKey
            key[kSecAttrKeyClass as String] = kSecAttrKeyClassPrivate
            key[kSecAttrApplicationLabel as String] = hash
            key[kSecReturnAttributes as String] = true
            key[kSecReturnPersistentRef as String] = true
            if withReferences { key[kSecReturnRef as String] = true }
            var keyFound: CFTypeRef?
            do throws(KeychainError) {
                try ItemOperations.copyMatching(NSDictionary(dictionary: key), &keyFound)
            } catch  where error.code == .itemNotFound {
                continue
            }
            guard let keyAttributes = keyFound as? [String: Any] else { continue }
            pairs.append(Pair(certificate: certificate, key: keyAttributes))
        }
        guard !pairs.isEmpty else { throw KeychainError(.itemNotFound, "no identity matches the query") }
        return pairs
    }

    /// One identity's entry, shaped as `ResultShape` shapes an item's.
    private static func value(for pair: Pair, returns: ReturnKinds) -> AnyObject {
        var attributes = pair.key.merging(pair.certificate) { _, certificate in certificate }
        for name in [kSecValueRef, kSecValuePersistentRef, kSecValueData].map({ $0 as String }) {
            attributes[name] = nil
        }
        attributes[kSecClass as String] = kSecClassIdentity as String
        let identity: SecIdentity? =
            if let certificate = pair.certificate[kSecValueRef as String] as? SecCertificate,
                let key = pair.key[kSecValueRef as String] as? SecKey
            {
                SecIdentity(certificate: certificate, privateKey: key)
            } else { nil }
        let persistentReference = pair.certificate[kSecValuePersistentRef as String]
        let certificateData = pair.certificate[kSecValueData as String]
        switch returns {
        case .reference: return identity ?? NSNull()
        case .attributes: return NSDictionary(dictionary: attributes)
        case .persistentReference: return (persistentReference as AnyObject?) ?? NSNull()
        case .data: return (certificateData as AnyObject?) ?? NSNull()
        default:
            var dictionary: [String: Any] = returns.contains(.attributes) ? attributes : [:]
            if returns.contains(.reference) { dictionary[kSecValueRef as String] = identity }
            if returns.contains(.data) { dictionary[kSecValueData as String] = certificateData }
            if returns.contains(.persistentReference) {
                dictionary[kSecValuePersistentRef as String] = persistentReference
            }
            return NSDictionary(dictionary: dictionary)
        }
    }
}
