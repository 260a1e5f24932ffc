public import ClavisCore

/// A certificate item with the private key item whose application label (`klbl`) is the certificate's public key
/// hash (`pkhh`): Apple's identity, which the keychain never stores itself.
public struct Identity: Sendable {
    /// The certificate item (its secret, the DER, when it was read).
    public let certificateItem: Item
    /// The private key item (its secret when it was read).
    public let privateKeyItem: Item

    /// Pairs a certificate item with its private key item.
    public init(certificateItem: Item, privateKeyItem: Item) {
        self.certificateItem = certificateItem
        self.privateKeyItem = privateKeyItem
    }

    /// The certificate, when its secret was read.
    public var certificate: StoredCertificate? { StoredCertificate(certificateItem) }

    /// The private key, when its secret was read.
    public var privateKey: StoredKey? { StoredKey(privateKeyItem) }

    /// The attributes an identity shows: the key's, with the certificate's over them.
    public var attributes: [AttributeKey: AttributeValue] {
        privateKeyItem.attributes.merging(certificateItem.attributes) { _, certificate in certificate }
    }
}
