import ClavisCore
import ClavisCrypto

/// Opens a PKCS#12 archive with `options`' `kSecImportExportPassphrase` and sets `items` to one dictionary for its
/// identity: `kSecImportItemIdentity`, `kSecImportItemCertChain` (the leaf, then the certificates it chains to),
/// `kSecImportItemTrust` (a `SecTrust` of that chain under the basic X.509 policy), and `kSecImportItemLabel` and
/// `kSecImportItemKeyID` when the archive names them.
///
/// As on iOS, nothing is stored in the keychain: add the identity with `SecItemAdd` (`kSecValueRef`).
///
/// - Returns: `errSecSuccess`; `errSecAuthFailed` for a wrong passphrase; `errSecDecode` for bytes that are not a
///   PKCS#12 archive (or hold a key Clavis does not read); `errSecParam` without a passphrase string.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>)
    -> OSStatus
{
    items.pointee = nil
    guard let passphrase = options.object(forKey: kSecImportExportPassphrase) as? String else { return errSecParam }
    let contents: PKCS12Contents
    do throws(CryptoError) {
        let bytes = [UInt8](UnsafeRawBufferPointer(start: pkcs12_data.bytes, count: pkcs12_data.length))
        contents = try PKCS12Contents(der: bytes, passphrase: SecureBytes(passphrase.utf8))
    } catch .authenticationFailed {
        return errSecAuthFailed
    } catch {
        return errSecDecode
    }
    var item: [String: Any] = [:]
    if let certificate = contents.certificate.map(SecCertificate.init) {
        let chain = PKCS12Chain.ordered(leaf: certificate, others: contents.otherCertificates.map(SecCertificate.init))
        item[kSecImportItemCertChain as String] = chain
        var trust: SecTrust?
        if SecTrustCreateWithCertificates(chain as NSArray, SecPolicyCreateBasicX509(), &trust) == errSecSuccess {
            item[kSecImportItemTrust as String] = trust
        }
        if let key = contents.privateKey, PKCS12Chain.key(key, matches: certificate) {
            item[kSecImportItemIdentity as String] = SecIdentity(
                certificate: certificate, privateKey: SecKey(key: key, attributes: [:]))
        }
    }
    if let label = contents.friendlyName { item[kSecImportItemLabel as String] = label }
    if let keyID = contents.localKeyID { item[kSecImportItemKeyID as String] = Data(keyID) }
    items.pointee = NSArray(array: item.isEmpty ? [] : [NSDictionary(dictionary: item)])
    return errSecSuccess
}

/// How an archive's certificates are put in order.
enum PKCS12Chain {
    /// `leaf`, then each certificate whose subject is the issuer of the one before (self-signed ends it); the
    /// certificates that chain to none are left out, as Apple's chain leaves them.
    static func ordered(leaf: SecCertificate, others: [SecCertificate]) -> [SecCertificate] {
        var chain = [leaf]
        var remaining = others
        while let last = chain.last, last.certificate.issuerName != last.certificate.subjectName,
            let index = remaining.firstIndex(where: { $0.certificate.subjectName == last.certificate.issuerName })
        {
            chain.append(remaining.remove(at: index))
        }
        return chain
    }

    /// True when `key` is the private key of `certificate`'s public key.
    static func key(_ key: AsymmetricKey, matches certificate: SecCertificate) -> Bool {
        guard key.isPrivate, let bytes = try? key.publicRepresentation(),
            let certificateKey = try? certificate.certificate.publicKey()
        else { return false }
        return (try? certificateKey.publicRepresentation()) == bytes
    }
}
