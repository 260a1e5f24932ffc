import ClavisClient
import ClavisCore
import ClavisCrypto

/// The dictionary side of the mapping between a `SecCertificate` and a `kSecClassCertificate` item: `SecCertificate`
/// objects around `CertificateItemFormat`, which holds the mapping (derived attributes, DER secret, label default).
enum CertificateItem {
    /// What `SecItemAdd` stores for a certificate given as `kSecValueRef` or `kSecValueData` (DER): the attributes
    /// derived from it beside the caller's, and its DER as the secret.
    ///
    /// The derived attributes are the certificate's own and replace any the caller gave; the caller's label is
    /// kept, and defaults to the subject summary.
    ///
    /// - Throws: `param` when neither is given or the data is not one DER certificate.
    static func forAdd(
        reference: SecCertificate?, data: Data?, attributes given: [AttributeKey: AttributeValue]
    ) throws(KeychainError) -> (attributes: [AttributeKey: AttributeValue], secret: SecureBytes) {
        let certificate: X509Certificate
        if let reference {
            certificate = reference.certificate
        } else if let data, let parsed = try? X509Certificate(der: Array(data)) {
            certificate = parsed
        } else {
            throw KeychainError(.param, "a certificate item needs kSecValueRef or kSecValueData of one DER certificate")
        }
        let item = CertificateItemFormat.newItem(for: certificate, attributes: given)
        return (item.attributes, item.secret)
    }

    /// What a query's `kSecValueRef` certificate selects: the attributes that make it unique.
    static func matching(_ reference: SecCertificate) -> [AttributeKey: AttributeValue] {
        CertificateItemFormat.matchingAttributes(of: reference.certificate)
    }

    /// The `SecCertificate` of a stored certificate item whose secret was read, or nil.
    static func reference(for item: Item) -> SecCertificate? {
        CertificateItemFormat.certificate(of: item).map(SecCertificate.init)
    }
}
