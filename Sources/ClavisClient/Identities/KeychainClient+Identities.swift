public import ClavisCore
public import ClavisCrypto

/// Identities in the keychain, typed: each stored certificate whose public key hash is the application label of a
/// stored private key in the caller's groups, as `kSecClassIdentity` finds them.
extension KeychainClient {
    /// The attributes of an identity's certificate that its private key takes as well when both are added.
    public static let identitySharedAttributes: Set<AttributeKey> = [
        .accessGroup, .accessible, .accessControl, .synchronizable, .label,
    ]

    /// The identities whose certificates `query` selects (its class taken as `.certificate`), at most `limit`, in the
    /// certificates' order; empty when none match. `readsCertificates` reads each certificate's DER,
    /// `readsPrivateKeys` each private key (which may ask for what its access control needs).
    public func findIdentities(
        _ query: ItemQuery = ItemQuery(itemClass: .certificate), limit: MatchLimit = .all,
        readsCertificates: Bool = true, readsPrivateKeys: Bool = true,
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> [Identity] {
        var certificates = query
        certificates.itemClass = .certificate
        certificates.limit = .all
        certificates.returnsSecret = readsCertificates
        var identities: [Identity] = []
        for certificate in try find(certificates, authentication: authentication) {
            if let maximum = limit.maximum, identities.count >= maximum { break }
            guard case .data(let hash) = certificate.attributes[.publicKeyHash] else { continue }
            let key = ItemQuery(
                itemClass: .key,
                attributes: [.keyClass: .number(KeyClass.privateKey.rawValue), .applicationLabel: .data(hash)],
                limit: .one, returnsSecret: readsPrivateKeys)
            guard let privateKey = try find(key, authentication: authentication).first else { continue }
            identities.append(Identity(certificateItem: certificate, privateKeyItem: privateKey))
        }
        return identities
    }

    /// Stores an identity as Apple does: `certificate`, then `privateKey` (in the same group and protection). The
    /// certificate being stored already is `duplicateItem`; the key being stored already is not (it pairs with the
    /// new certificate). Returns the certificate as stored; nothing stays stored when the key fails.
    public func addIdentity(
        certificate: NewItem, privateKey: NewItem, authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> Item {
        var stored = try add(certificate, authentication: authentication)
        do throws(KeychainError) {
            _ = try add(privateKey, authentication: authentication)
        } catch  where error.code == .duplicateItem {
            // The key was stored before; the new certificate pairs with it.
        } catch {
            _ = try? delete(
                ItemQuery(
                    itemClass: .certificate, synchronizable: .any, persistentReference: stored.persistentReference),
                authentication: authentication)
            throw error
        }
        stored.secret = certificate.secret
        return stored
    }

    /// Stores `certificate` and its `privateKey` as an identity with `attributes` (the key takes the group,
    /// protection, access control, synchronizability and label among them).
    ///
    /// - Throws: `param` when the key is not the certificate's private key; what the other `addIdentity` throws.
    public func addIdentity(
        certificate: X509Certificate, privateKey: AsymmetricKey, attributes: [AttributeKey: AttributeValue] = [:],
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> StoredCertificate {
        guard PKCS12Archive.key(privateKey, matches: certificate) else {
            throw KeychainError(.param, "the private key is not the certificate's")
        }
        let keyAttributes = attributes.filter { Self.identitySharedAttributes.contains($0.key) }
        let stored = try addIdentity(
            certificate: CertificateItemFormat.newItem(for: certificate, attributes: attributes),
            privateKey: KeyItemFormat.newItem(for: privateKey, attributes: keyAttributes),
            authentication: authentication)
        return StoredCertificate(item: stored, certificate: certificate)
    }

    /// Deletes each identity `query` selects: its certificate and its private key, as Apple does; how many
    /// identities were deleted.
    public func deleteIdentities(
        _ query: ItemQuery = ItemQuery(itemClass: .certificate),
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> Int {
        let identities = try findIdentities(
            query, readsCertificates: false, readsPrivateKeys: false, authentication: authentication)
        for identity in identities {
            for item in [identity.certificateItem, identity.privateKeyItem] {
                // A key that paired with another certificate too went with it already: nothing matches then.
                _ = try delete(
                    ItemQuery(
                        itemClass: item.itemClass, synchronizable: .any, persistentReference: item.persistentReference),
                    authentication: authentication)
            }
        }
        return identities.count
    }
}
