import ClavisCore
import ClavisCrypto

/// An X.509 certificate in memory (Apple's `SecCertificate`), made by `SecCertificateCreateWithData` from DER.
///
/// Immutable once made, so it may be shared between threads.
public final class SecCertificate: @unchecked Sendable {
    /// The parsed certificate.
    let certificate: X509Certificate

    init(_ certificate: X509Certificate) {
        self.certificate = certificate
    }
}

extension SecCertificate: Equatable, Hashable {
    /// True for certificates of the same DER bytes, as `CFEqual` finds them.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool {
        lhs.certificate.der == rhs.certificate.der
    }

    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate.der)
    }
}

extension SecCertificate: CustomStringConvertible {
    /// The subject summary in the manner of Apple's description; a certificate holds nothing secret.
    public var description: String {
        "<cert(\(Unmanaged.passUnretained(self).toOpaque())) s: \(subjectSummary ?? "")>"
    }
}

/// Returns the type identifier of certificates: what `CFGetTypeID` answers for a `SecCertificate`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateGetTypeID() -> CFTypeID { CoreFoundationTypeID.certificate.rawValue }

/// Makes a certificate from its DER encoding; nil for anything that is not exactly one DER certificate
/// (PEM text, truncated or padded DER, random bytes).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: data.bytes, count: data.length))
    guard let certificate = try? X509Certificate(der: bytes) else { return nil }
    return SecCertificate(certificate)
}

/// Returns the certificate's DER encoding, the bytes it was made from.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    Data(certificate.certificate.der) as NSData
}
