public import ClavisCrypto

/// The names a certificate is known by, as Apple shows them.
extension X509Certificate {
    /// The subject's last common name, else the first email address, else the first DNS name, else the first
    /// organisational unit or organisation: what Apple shows for a certificate (`SecCertificateCopySubjectSummary`).
    public var subjectSummary: String? {
        commonNames.last ?? emailAddresses.first ?? dnsNames.first ?? organizationalUnitNames.first
            ?? organizationNames.first
    }

    /// The rfc822Name entries of the subject alternative names, then the subject's emailAddress attributes, in the
    /// order Apple lists them (`SecCertificateCopyEmailAddresses`).
    public var emailAddresses: [String] {
        alternativeEmailAddresses + subjectEmailAddresses
    }
}
