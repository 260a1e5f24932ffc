public import ClavisCore
public import ClavisCrypto

/// A key item found in the keychain with the key it holds: a key kept in software (its item's secret is the key's
/// external representation), or a private key a token holds (`kSecAttrTokenIDSecureEnclave`), of which only the
/// public key is here and which is used through `KeychainClient.useKey`.
public struct StoredKey: Sendable {
    /// The item as found (its secret read).
    public let item: Item
    /// The key itself; for a key a token holds, its public key.
    public let key: AsymmetricKey

    /// The key of `item`, a key item whose secret was read; nil for a symmetric key, a secret not read, or bytes
    /// that are not a key of the item's class and type.
    public init?(_ item: Item) {
        guard item.itemClass == .key else { return nil }
        if TokenKey.isHeld(item.attributes) {
            // The service hands out a token key's public key as its secret.
            guard let secret = item.secret,
                let publicKey = try? AsymmetricKey.ellipticCurve(x963: secret, isPrivate: false)
            else { return nil }
            key = publicKey
        } else {
            guard let key = KeyItemFormat.key(of: item) else { return nil }
            self.key = key
        }
        self.item = item
    }

    /// A key and the item it was stored as.
    init(item: Item, key: AsymmetricKey) {
        self.item = item
        self.key = key
    }

    /// True for a private key a token holds: it never leaves the keychain service.
    public var isTokenHeld: Bool { TokenKey.isHeld(item.attributes) }

    /// For a private key a token holds, what holds it: the keychain's TPM or the service in software.
    public var tokenHolder: TokenKey.Holder? { TokenKey.holder(item.attributes) }

    /// True for a private key, held here or by a token.
    public var isPrivate: Bool { isTokenHeld || key.isPrivate }

    /// The public key (the key itself when it is public).
    ///
    /// - Throws: `param` when OpenSSL cannot copy it.
    public func publicKey() throws(KeychainError) -> AsymmetricKey {
        guard key.isPrivate else { return key }
        do throws(CryptoError) {
            return try key.publicKey()
        } catch {
            throw KeychainError(.param, "the public key could not be made")
        }
    }

    /// The key's type, class and size in the manner of Apple's `SecKey` description; never key material.
    public var summary: String { key.summary(isPrivate: isPrivate) }
}
