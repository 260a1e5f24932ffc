public import ClavisCore
public import ClavisCrypto

/// Certificates in the keychain, typed, as `SecItemAdd` and `SecItemCopyMatching` store and find a
/// `SecCertificate`.
extension KeychainClient {
    /// Stores `certificate` with `attributes` (label, access group, protection) beside the ones Apple derives from it;
    /// returns it as stored.
    ///
    /// - Throws: `duplicateItem` for a certificate stored already; what `add` throws.
    public func addCertificate(
        _ certificate: X509Certificate, attributes: [AttributeKey: AttributeValue] = [:],
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> StoredCertificate {
        let item = CertificateItemFormat.newItem(for: certificate, attributes: attributes)
        var added = try add(item, authentication: authentication)
        added.secret = item.secret
        return StoredCertificate(item: added, certificate: certificate)
    }

    /// The certificates `query` selects (its class is taken as `.certificate`, their DER read), in insertion order;
    /// empty when none match.
    public func findCertificates(
        _ query: ItemQuery = ItemQuery(itemClass: .certificate),
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> [StoredCertificate] {
        var query = query
        query.itemClass = .certificate
        query.returnsSecret = true
        return try find(query, authentication: authentication).compactMap(StoredCertificate.init)
    }
}
