import ClavisClient
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
    /// private key in the same group and protection, as Apple does (`KeychainClient.addIdentity`). The certificate
    /// being stored already is `errSecDuplicateItem`; the key being stored already is not (it pairs with the new
    /// certificate).
    static func add(_ attributes: [String: Any], identity: SecIdentity, _ result: UnsafeMutablePointer<CFTypeRef?>?)
        throws(KeychainError)
    {
        var certificate = attributes
        certificate[kSecClass as String] = kSecClassCertificate
        certificate[kSecValueRef as String] = identity.certificate
        var key = attributes.filter { sharedAddKeys.contains($0.key) }
        key[kSecClass as String] = kSecClassKey
        key[kSecValueRef as String] = identity.privateKey
        let request = try ItemRequest(NSDictionary(dictionary: certificate), for: .add)
        let client = try KeychainClient()
        let added: Item
        do throws(KeychainError) {
            let keyItem = ItemOperations.newItem(for: try ItemRequest(NSDictionary(dictionary: key), for: .add))
            added = try client.addIdentity(
                certificate: ItemOperations.newItem(for: request), privateKey: keyItem,
                authentication: request.authentication.call)
        } catch  where error.code == .duplicateItem && identity.privateKey.token != nil {
            // A key a token holds is stored already: the new certificate pairs with it.
            added = try client.add(ItemOperations.newItem(for: request), authentication: request.authentication.call)
        }
        guard let result, !request.returns.isEmpty else { return }
        result.pointee = ResultShape.object(for: [added], returns: request.returns, limit: .one)
        if result.pointee is SecCertificate { result.pointee = identity }
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
        let (certificates, authentication) = try certificateQuery(query)
        guard try KeychainClient().deleteIdentities(certificates, authentication: authentication) > 0 else {
            throw KeychainError(.itemNotFound, "no identity matches the query")
        }
    }

    /// The identities `query` selects, at most `limit` (`KeychainClient.findIdentities`), as dictionaries of their
    /// certificate and key; `errSecItemNotFound` when there are none.
    private static func find(_ query: NSDictionary, withReferences: Bool, withData: Bool, limit: MatchLimit)
        throws(KeychainError) -> [Pair]
    {
        let (certificates, authentication) = try certificateQuery(query)
        let identities = try KeychainClient().findIdentities(
            certificates, limit: limit, readsCertificates: withReferences || withData, readsPrivateKeys: withReferences,
            authentication: authentication)
        guard !identities.isEmpty else { throw KeychainError(.itemNotFound, "no identity matches the query") }
        return identities.map { identity in
            var certificate = ResultShape.attributes(of: identity.certificateItem)
            certificate[kSecValuePersistentRef as String] = Data(identity.certificateItem.persistentReference.bytes)
            var key = ResultShape.attributes(of: identity.privateKeyItem)
            key[kSecValuePersistentRef as String] = Data(identity.privateKeyItem.persistentReference.bytes)
            if withReferences {
                certificate[kSecValueRef as String] = CertificateItem.reference(for: identity.certificateItem)
                key[kSecValueRef as String] = KeyItem.reference(
                    for: identity.privateKeyItem, authentication: authentication)
            }
            if withData {
                certificate[kSecValueData as String] = identity.certificateItem.secret?.withUnsafeBytes { Data($0) }
            }
            return Pair(certificate: certificate, key: key)
        }
    }

    /// The certificate query an identity query stands for (its attributes, group and reference, as a certificate's),
    /// and how its calls authenticate.
    private static func certificateQuery(_ query: NSDictionary) throws(KeychainError)
        -> (ItemQuery, CallAuthentication)
    {
        var certificates: [String: Any] = [:]
        for case (let name as String, let value) in query
        where !name.hasPrefix("r_") && name != kSecMatchLimit as String {
            certificates[name] = value
        }
        certificates[kSecClass as String] = kSecClassCertificate
        if let identity = certificates[kSecValueRef as String] as? SecIdentity {
            certificates[kSecValueRef as String] = identity.certificate
        }
        let request = try ItemRequest(NSDictionary(dictionary: certificates), for: .copyMatching)
        return (ItemOperations.itemQuery(for: request, limit: .all), request.authentication.call)
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
