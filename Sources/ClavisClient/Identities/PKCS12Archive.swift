public import ClavisCore
public import ClavisCrypto

/// A PKCS#12 archive (`.p12`, `.pfx`) opened as `SecPKCS12Import` opens it: its identity's certificate and private
/// key, the chain from that certificate up, and the names the archive gives.
public struct PKCS12Archive: Sendable {
    /// The certificate whose public key is the private key's (or the first certificate, when there is no key).
    public let certificate: X509Certificate?
    /// `certificate`, then each certificate whose subject is the issuer of the one before (self-signed ends it);
    /// empty without a certificate.
    public let chain: [X509Certificate]
    /// The private key, when the archive holds one and it is the certificate's.
    public let privateKey: AsymmetricKey?
    /// The friendly name (`kSecImportItemLabel`), when given.
    public let friendlyName: String?
    /// The local key identifier (`kSecImportItemKeyID`), when given.
    public let localKeyID: [UInt8]?

    /// Opens `der` with `passphrase`.
    ///
    /// - Throws: `authFailed` for a wrong passphrase; `decode` for bytes that are not a PKCS#12 archive (or hold a key
    ///   Clavis does not read).
    public init(der: [UInt8], passphrase: SecureBytes) throws(KeychainError) {
        let contents: PKCS12Contents
        do throws(CryptoError) {
            contents = try PKCS12Contents(der: der, passphrase: passphrase)
        } catch .authenticationFailed {
            throw KeychainError(.authFailed, "the PKCS#12 passphrase is wrong")
        } catch {
            throw KeychainError(.decode, "the data is not a PKCS#12 archive Clavis reads")
        }
        certificate = contents.certificate
        chain = contents.certificate.map { Self.orderedChain(leaf: $0, others: contents.otherCertificates) } ?? []
        privateKey = contents.certificate.flatMap { certificate in
            contents.privateKey.flatMap { Self.key($0, matches: certificate) ? $0 : nil }
        }
        friendlyName = contents.friendlyName
        localKeyID = contents.localKeyID
    }

    /// `leaf`, then each certificate whose subject is the issuer of the one before (self-signed ends it); the
    /// certificates that chain to none are left out, as Apple's chain leaves them.
    public static func orderedChain(leaf: X509Certificate, others: [X509Certificate]) -> [X509Certificate] {
        var chain = [leaf]
        var remaining = others
        while let last = chain.last, last.issuerName != last.subjectName,
            let index = remaining.firstIndex(where: { $0.subjectName == last.issuerName })
        {
            chain.append(remaining.remove(at: index))
        }
        return chain
    }

    /// True when `key` is the private key of `certificate`'s public key.
    public static func key(_ key: AsymmetricKey, matches certificate: X509Certificate) -> Bool {
        guard key.isPrivate, let bytes = try? key.publicRepresentation(),
            let certificateKey = try? certificate.publicKey()
        else { return false }
        return (try? certificateKey.publicRepresentation()) == bytes
    }
}
