public import ClavisCore
public import ClavisCrypto

/// Keys in the keychain, typed: stored from an `AsymmetricKey`, generated as a pair or by the token, found, and used
/// to sign and verify, as `SecItemAdd`, `SecKeyCreateRandomKey`, `SecKeyCreateSignature` and `SecKeyVerifySignature`
/// do with a `SecKey`.
extension KeychainClient {
    /// Stores `key` as a key item with `attributes` (label, tag, access group, protection, access control) beside
    /// the ones Apple derives from it; returns the key as stored.
    ///
    /// - Throws: `duplicateItem` for a key stored already with the same primary key; `param` for a key that cannot be
    ///   exported; what `add` throws.
    public func addKey(
        _ key: AsymmetricKey, attributes: [AttributeKey: AttributeValue] = [:],
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> StoredKey {
        let item = try KeyItemFormat.newItem(for: key, attributes: attributes)
        var added = try add(item, authentication: authentication)
        added.secret = item.secret
        return StoredKey(item: added, key: key)
    }

    /// Generates a key pair and stores it, as `SecKeyCreateRandomKey` with `kSecAttrIsPermanent` does: the private
    /// key with `privateKeyAttributes`, then (unless `publicKeyAttributes` is nil) its public key with those, all or
    /// nothing.
    ///
    /// - Throws: `param` when the key cannot be made; what `addKey` throws (nothing stays stored then).
    public func generateKeyPair(
        _ specification: KeySpecification, privateKeyAttributes: [AttributeKey: AttributeValue] = [:],
        publicKeyAttributes: [AttributeKey: AttributeValue]? = [:],
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> (privateKey: StoredKey, publicKey: StoredKey?) {
        let key = try specification.generate()
        let privateKey = try addKey(key, attributes: privateKeyAttributes, authentication: authentication)
        guard let publicKeyAttributes else { return (privateKey, nil) }
        do throws(KeychainError) {
            let publicKey = try addKey(
                try privateKey.publicKey(), attributes: publicKeyAttributes, authentication: authentication)
            return (privateKey, publicKey)
        } catch {
            // The pair is stored whole or not at all.
            _ = try? delete(
                ItemQuery(
                    itemClass: .key, synchronizable: .any, persistentReference: privateKey.item.persistentReference),
                authentication: authentication)
            throw error
        }
    }

    /// Generates an EC P-256 private key inside the keychain service, held by its token
    /// (`kSecAttrTokenIDSecureEnclave`) and stored as `attributes` describe (label, tag, access group, a
    /// `ThisDeviceOnly` protection, access control); the key answered holds its public key, and signs through
    /// `useKey`.
    ///
    /// - Throws: `param` for a synchronizable key or another protection; what `addGeneratedKey` throws.
    public func generateTokenKey(
        attributes: [AttributeKey: AttributeValue] = [:], authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> StoredKey {
        let item = try addGeneratedKey(try Self.tokenKeyItem(attributes), authentication: authentication)
        guard let key = StoredKey(item) else {
            throw KeychainError(.internal, "the keychain service answered a key without its public key")
        }
        return key
    }

    /// Generates an EC P-256 private key inside the keychain service, held by its token as `generateTokenKey`'s is,
    /// without storing it: the key answered is sealed to this keychain (`SealedKey`), bound to the access group,
    /// `ThisDeviceOnly` protection and access control `attributes` name, and used through `useSealedKey`.
    ///
    /// - Throws: `param` for a synchronizable key or another protection; what `generateSealedKey` throws.
    public func generateSealedTokenKey(
        attributes: [AttributeKey: AttributeValue] = [:], authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> SealedKey {
        return try generateSealedKey(try Self.tokenKeyItem(attributes), authentication: authentication)
    }

    /// The key item the token generates as `attributes` describe: held by `kSecAttrTokenIDSecureEnclave`, never
    /// synchronizable, its secret left to the service.
    ///
    /// - Throws: `param` for a synchronizable key.
    private static func tokenKeyItem(_ attributes: [AttributeKey: AttributeValue]) throws(KeychainError) -> NewItem {
        guard attributes[.synchronizable]?.boolValue != true else {
            throw KeychainError(.param, "a key held by a token never leaves the device, so it cannot synchronize")
        }
        var attributes = attributes
        attributes[.tokenID] = .string(TokenKey.secureEnclave)
        attributes[.synchronizable] = .bool(false)
        return NewItem(itemClass: .key, attributes: attributes, secret: SecureBytes([UInt8]()))
    }

    /// The asymmetric keys `query` selects (its class is taken as `.key`, their secrets read), in insertion order;
    /// empty when none match. Symmetric keys are left out.
    public func findKeys(_ query: ItemQuery, authentication: CallAuthentication = CallAuthentication())
        throws(KeychainError) -> [StoredKey]
    {
        var query = query
        query.itemClass = .key
        query.returnsSecret = true
        return try find(query, authentication: authentication).compactMap(StoredKey.init)
    }

    /// Signs `data` with the private key `key`, by `algorithmName` (Apple's name; by default ECDSA or PKCS#1 v1.5
    /// over SHA-256); a key a token holds signs in the keychain service, authenticating as its access control asks.
    ///
    /// - Throws: `param` when the key cannot run the algorithm or the input is refused; what `useKey` throws.
    public func sign(
        _ data: [UInt8], with key: StoredKey, algorithmName: String? = nil,
        authentication: CallAuthentication = CallAuthentication()
    ) throws(KeychainError) -> [UInt8] {
        let name = algorithmName ?? KeySignature.defaultAlgorithmName(for: key.key)
        let scheme = try KeySignature.scheme(named: name, for: .sign, key: key.key, isPrivate: key.isPrivate)
        guard key.isTokenHeld else {
            return try KeySignature.sign(data, with: key.key, scheme: scheme, algorithmName: name)
        }
        let reference = key.item.persistentReference
        return try KeySignature.sign(data, with: key.key, scheme: scheme, algorithmName: name) {
            (digest) throws(KeychainError) in
            try useKey(reference, for: .signDigest(digest), authentication: authentication)
        }
    }

    /// Checks `signature` over `data` with `key`'s public key, by `algorithmName` (by default ECDSA or PKCS#1 v1.5
    /// over SHA-256).
    ///
    /// - Throws: `verifyFailed` when it does not hold; `param` when the key cannot run the algorithm.
    public func verify(_ signature: [UInt8], over data: [UInt8], with key: StoredKey, algorithmName: String? = nil)
        throws(KeychainError)
    {
        let publicKey = try key.publicKey()
        let name = algorithmName ?? KeySignature.defaultAlgorithmName(for: publicKey)
        let scheme = try KeySignature.scheme(named: name, for: .verify, key: publicKey, isPrivate: false)
        try KeySignature.verify(signature, over: data, with: publicKey, scheme: scheme, algorithmName: name)
    }
}
