internal import COpenSSL
import ClavisCore

/// What a PKCS#12 archive holds once opened with its passphrase: the private key, the certificate that goes with it,
/// the other certificates, and the friendly name and local key ID the key's bag carries.
public struct PKCS12Contents: Sendable {
    /// The private key; nil when the archive holds only certificates.
    public let privateKey: AsymmetricKey?
    /// The certificate whose public key is the private key's (or the first certificate, when there is no key).
    public let certificate: X509Certificate?
    /// The archive's other certificates, in the order it holds them.
    public let otherCertificates: [X509Certificate]
    /// The `friendlyName` bag attribute of the key or its certificate.
    public let friendlyName: String?
    /// The `localKeyID` bag attribute that ties the key to its certificate.
    public let localKeyID: [UInt8]?

    /// Opens a DER PKCS#12 archive with `passphrase` (UTF-8, as `openssl pkcs12` writes it).
    ///
    /// - Throws: `authenticationFailed` when the passphrase does not verify the archive's MAC or decrypt its bags;
    ///   `invalidInput` when the bytes are not one PKCS#12 archive or hold a key Clavis does not support.
    public init(der: [UInt8], passphrase: SecureBytes) throws(CryptoError) {
        let archive = try PKCS12Archive(der: der)
        // OpenSSL wants a NUL-terminated passphrase; the copy is zeroed when it goes.
        let terminated = SecureBytes(count: passphrase.count + 1) { buffer in
            passphrase.withUnsafeBytes { buffer.copyMemory(from: $0) }
            buffer[passphrase.count] = 0
        }
        var parsed: (key: OpaquePointer?, certificate: OpaquePointer?, others: OpaquePointer?) = (nil, nil, nil)
        let status = terminated.withUnsafeBytes { bytes -> Int32 in
            let text = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
            var chosen: UnsafePointer<CChar>?
            guard clavis_pkcs12_verify(archive.pointer, text, &chosen) != 0 else { return 0 }
            return PKCS12_parse(archive.pointer, chosen, &parsed.key, &parsed.certificate, &parsed.others) == 1 ? 1 : -1
        }
        // Each handed-out object gets its owner before anything can throw.
        let others = parsed.others.map(CertificateStack.init(taking:))
        let certificate = try parsed.certificate.map { pointer throws(CryptoError) in
            try X509Certificate(taking: pointer)
        }
        let key = try parsed.key.map { pointer throws(CryptoError) in try AsymmetricKey(taking: pointer) }
        // A passphrase that verifies the MAC but decrypts nothing (or no MAC and the wrong passphrase) is as wrong.
        guard status == 1 else { throw OpenSSLStatus.cleared(.authenticationFailed) }
        privateKey = key
        self.certificate = certificate
        otherCertificates = others?.certificates() ?? []
        friendlyName = certificate.flatMap { Self.alias(of: $0) }
        localKeyID = certificate.flatMap { Self.keyID(of: $0) }
    }

    /// The friendly name `PKCS12_parse` copied onto the certificate.
    private static func alias(of certificate: X509Certificate) -> String? {
        var length: Int32 = 0
        guard let bytes = X509_alias_get0(certificate.pointer, &length), length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
    }

    /// The local key ID `PKCS12_parse` copied onto the certificate.
    private static func keyID(of certificate: X509Certificate) -> [UInt8]? {
        var length: Int32 = 0
        guard let bytes = X509_keyid_get0(certificate.pointer, &length), length > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }
}

/// A parsed `PKCS12` structure; its one owner, freed in `deinit`.
final class PKCS12Archive {
    /// The owned archive.
    let pointer: OpaquePointer

    /// Reads one DER archive; throws unless `der` is exactly one.
    init(der: [UInt8]) throws(CryptoError) {
        pointer = try der.withBytes { base, count throws(CryptoError) -> OpaquePointer in
            guard let archive = clavis_pkcs12_from_der(base, count) else {
                throw OpenSSLStatus.cleared(.invalidInput("not one DER PKCS#12 archive"))
            }
            return archive
        }
    }

    deinit {
        PKCS12_free(pointer)
    }
}
