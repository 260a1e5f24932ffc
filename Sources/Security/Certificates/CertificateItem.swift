import ClavisCore
import ClavisCrypto

/// The mapping between a `SecCertificate` and a `kSecClassCertificate` item: the attributes Apple derives from a
/// certificate, the secret (its DER) and the certificate made again from a stored item.
enum CertificateItem {
    /// `kSecAttrCertificateType`: `CSSM_CERT_X_509v3`, the type Apple records for the certificates it stores.
    static let x509Version3: Int64 = 3
    /// `kSecAttrCertificateEncoding`: `CSSM_CERT_ENCODING_DER`.
    static let derEncoding: Int64 = 3

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
        let certificate: SecCertificate
        if let reference {
            certificate = reference
        } else if let data, let parsed = try? X509Certificate(der: Array(data)) {
            certificate = SecCertificate(parsed)
        } else {
            throw KeychainError(.param, "a certificate item needs kSecValueRef or kSecValueData of one DER certificate")
        }
        var attributes = given
        attributes.merge(derivedAttributes(of: certificate)) { _, derived in derived }
        if attributes[.label] == nil, let summary = certificate.subjectSummary {
            attributes[.label] = .string(summary)
        }
        return (attributes, SecureBytes(certificate.certificate.der))
    }

    /// What a query's `kSecValueRef` certificate selects: the attributes that make it unique.
    static func matching(_ reference: SecCertificate) -> [AttributeKey: AttributeValue] {
        derivedAttributes(of: reference).filter { ItemClass.certificate.primaryKey.contains($0.key) }
    }

    /// The attributes Apple derives from a certificate: type, encoding, normalized subject and issuer (their
    /// content, without the outer `SEQUENCE`), serial number, subject key identifier when it has one, and the
    /// public key hash (SHA-1 of the key's external representation, the `klbl` of its private key).
    static func derivedAttributes(of certificate: SecCertificate) -> [AttributeKey: AttributeValue] {
        let x509 = certificate.certificate
        var attributes: [AttributeKey: AttributeValue] = [
            .certificateType: .number(x509Version3), .certificateEncoding: .number(derEncoding),
            .serialNumber: .data(Data(x509.serialNumber)),
        ]
        if let subject = DistinguishedName.normalizedSequence(x509.subjectName) {
            attributes[.subject] = .data(Data(content(ofSequence: subject)))
        }
        if let issuer = DistinguishedName.normalizedSequence(x509.issuerName) {
            attributes[.issuer] = .data(Data(content(ofSequence: issuer)))
        }
        if let identifier = x509.subjectKeyIdentifier { attributes[.subjectKeyID] = .data(Data(identifier)) }
        if let hash = publicKeyHash(of: certificate) { attributes[.publicKeyHash] = .data(Data(hash)) }
        return attributes
    }

    /// SHA-1 of the certificate's public key as `SecKeyCopyExternalRepresentation` gives it; nil for a key Clavis
    /// does not read.
    static func publicKeyHash(of certificate: SecCertificate) -> [UInt8]? {
        guard let key = try? certificate.certificate.publicKey(), let bytes = try? key.publicRepresentation() else {
            return nil
        }
        return DigestAlgorithm.sha1.hash(bytes)
    }

    /// The content of a DER `SEQUENCE` (`normalizedSequence` writes a well-formed one).
    private static func content(ofSequence bytes: [UInt8]) -> ArraySlice<UInt8> {
        let lengthBytes = bytes[1] < 0x80 ? 0 : Int(bytes[1] & 0x7F)
        return bytes[(2 + lengthBytes)...]
    }

    /// The `SecCertificate` of a stored certificate item whose secret was read, or nil.
    static func reference(for item: Item) -> SecCertificate? {
        guard item.itemClass == .certificate, let secret = item.secret,
            let parsed = secret.withUnsafeBytes({ try? X509Certificate(der: Array($0)) })
        else { return nil }
        return SecCertificate(parsed)
    }
}
