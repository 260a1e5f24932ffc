public import ClavisCore
public import ClavisCrypto

/// A certificate item found in the keychain with the certificate it holds.
public struct StoredCertificate: Sendable {
    /// The item as found (its secret, the DER, read).
    public let item: Item
    /// The certificate.
    public let certificate: X509Certificate

    /// The certificate of `item`, a certificate item whose secret was read; nil otherwise.
    public init?(_ item: Item) {
        guard let certificate = CertificateItemFormat.certificate(of: item) else { return nil }
        self.item = item
        self.certificate = certificate
    }

    /// A certificate and the item it was stored as.
    init(item: Item, certificate: X509Certificate) {
        self.item = item
        self.certificate = certificate
    }
}
