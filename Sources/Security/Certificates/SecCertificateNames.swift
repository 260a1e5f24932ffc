import ClavisClient
import ClavisCore
import ClavisCrypto

// The names a certificate is known by: its subject summary, common name, email addresses and the normalized
// issuer and subject Apple compares (kSecAttrIssuer, kSecAttrSubject).

extension SecCertificate {
    /// What Apple shows for a certificate: `X509Certificate.subjectSummary`.
    var subjectSummary: String? { certificate.subjectSummary }

    /// The certificate's email addresses in the order Apple lists them: `X509Certificate.emailAddresses`.
    var emailAddresses: [String] { certificate.emailAddresses }
}

/// Returns a short human-readable name for the certificate (its common name, or another name it carries).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.subjectSummary.map { $0 as NSString }
}

/// Sets `commonName` to the subject's common name (the last one when there are several) and returns
/// `errSecSuccess`; a subject without a common name answers `errSecInternal`, as Security's SecCertificate.c does.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopyCommonName(
    _ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>
) -> OSStatus {
    guard let name = certificate.certificate.commonNames.last else {
        commonName.pointee = nil
        return errSecInternal
    }
    commonName.pointee = name as NSString
    return errSecSuccess
}

/// Sets `emailAddresses` to the certificate's email addresses (subject alternative names, then the subject's
/// emailAddress attributes; empty when it has none) and returns `errSecSuccess`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopyEmailAddresses(
    _ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
    emailAddresses.pointee = certificate.emailAddresses.map { $0 as NSString } as NSArray
    return errSecSuccess
}

/// Returns the issuer's distinguished name as a normalized DER `SEQUENCE` (PrintableString values upper-cased,
/// blanks folded), or nil when the name is malformed.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    DistinguishedName.normalizedSequence(certificate.certificate.issuerName).map { Data($0) as NSData }
}

/// Returns the subject's distinguished name as a normalized DER `SEQUENCE` (PrintableString values upper-cased,
/// blanks folded), or nil when the name is malformed.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    DistinguishedName.normalizedSequence(certificate.certificate.subjectName).map { Data($0) as NSData }
}
