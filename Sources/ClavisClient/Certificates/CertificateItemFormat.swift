public import ClavisCore
public import ClavisCrypto
import FoundationEssentials

/// The mapping between an `X509Certificate` and a `kSecClassCertificate` item, as Apple's keychain stores
/// certificates: the attributes Apple derives from one, its DER as the secret, and the certificate read back from a
/// stored item.
public enum CertificateItemFormat {
    /// `kSecAttrCertificateType`: `CSSM_CERT_X_509v3`, the type Apple records for the certificates it stores.
    public static let x509Version3: Int64 = 3
    /// `kSecAttrCertificateEncoding`: `CSSM_CERT_ENCODING_DER`.
    public static let derEncoding: Int64 = 3

    /// The attributes Apple derives from a certificate: type, encoding, normalized subject and issuer (their
    /// content, without the outer `SEQUENCE`), serial number, subject key identifier when it has one, and the
    /// public key hash (`pkhh`: SHA-1 of the key's external representation, the `klbl` of its private key).
    public static func derivedAttributes(of certificate: X509Certificate) -> [AttributeKey: AttributeValue] {
        var attributes: [AttributeKey: AttributeValue] = [
            .certificateType: .number(x509Version3), .certificateEncoding: .number(derEncoding),
            .serialNumber: .data(Data(certificate.serialNumber)),
        ]
        if let subject = DistinguishedName.normalizedSequence(certificate.subjectName) {
            attributes[.subject] = .data(Data(content(ofSequence: subject)))
        }
        if let issuer = DistinguishedName.normalizedSequence(certificate.issuerName) {
            attributes[.issuer] = .data(Data(content(ofSequence: issuer)))
        }
        if let identifier = certificate.subjectKeyIdentifier { attributes[.subjectKeyID] = .data(Data(identifier)) }
        if let hash = publicKeyHash(of: certificate) { attributes[.publicKeyHash] = .data(Data(hash)) }
        return attributes
    }

    /// SHA-1 of the certificate's public key as its external representation gives it; nil for a key Clavis does not
    /// read.
    public static func publicKeyHash(of certificate: X509Certificate) -> [UInt8]? {
        guard let key = try? certificate.publicKey(), let bytes = try? key.publicRepresentation() else { return nil }
        return DigestAlgorithm.sha1.hash(bytes)
    }

    /// What the keychain stores for `certificate`: the derived attributes over `attributes` (the caller's label is
    /// kept, and defaults to the subject summary), and its DER as the secret.
    public static func newItem(for certificate: X509Certificate, attributes given: [AttributeKey: AttributeValue] = [:])
        -> NewItem
    {
        var attributes = given
        attributes.merge(derivedAttributes(of: certificate)) { _, derived in derived }
        if attributes[.label] == nil, let summary = certificate.subjectSummary {
            attributes[.label] = .string(summary)
        }
        return NewItem(itemClass: .certificate, attributes: attributes, secret: SecureBytes(certificate.der))
    }

    /// What a query for `certificate` matches: the attributes that make it unique.
    public static func matchingAttributes(of certificate: X509Certificate) -> [AttributeKey: AttributeValue] {
        derivedAttributes(of: certificate).filter { ItemClass.certificate.primaryKey.contains($0.key) }
    }

    /// The certificate of a stored certificate item whose secret was read; nil otherwise.
    public static func certificate(of item: Item) -> X509Certificate? {
        guard item.itemClass == .certificate, let secret = item.secret else { return nil }
        return secret.withUnsafeBytes { try? X509Certificate(der: Array($0)) }
    }

    /// The content of a DER `SEQUENCE` (`normalizedSequence` writes a well-formed one).
    private static func content(ofSequence bytes: [UInt8]) -> ArraySlice<UInt8> {
        let lengthBytes = bytes[1] < 0x80 ? 0 : Int(bytes[1] & 0x7F)
        return bytes[(2 + lengthBytes)...]
    }
}
