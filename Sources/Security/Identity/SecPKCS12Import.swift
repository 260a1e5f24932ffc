import ClavisClient
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
    let archive: PKCS12Archive
    do throws(KeychainError) {
        let bytes = [UInt8](UnsafeRawBufferPointer(start: pkcs12_data.bytes, count: pkcs12_data.length))
        archive = try PKCS12Archive(der: bytes, passphrase: SecureBytes(passphrase.utf8))
    } catch {
        return error.osStatus
    }
    var item: [String: Any] = [:]
    if let certificate = archive.certificate.map(SecCertificate.init) {
        let chain = [certificate] + archive.chain.dropFirst().map(SecCertificate.init)
        item[kSecImportItemCertChain as String] = chain
        var trust: SecTrust?
        if SecTrustCreateWithCertificates(chain as NSArray, SecPolicyCreateBasicX509(), &trust) == errSecSuccess {
            item[kSecImportItemTrust as String] = trust
        }
        if let key = archive.privateKey {
            item[kSecImportItemIdentity as String] = SecIdentity(
                certificate: certificate, privateKey: SecKey(key: key, attributes: [:]))
        }
    }
    if let label = archive.friendlyName { item[kSecImportItemLabel as String] = label }
    if let keyID = archive.localKeyID { item[kSecImportItemKeyID as String] = Data(keyID) }
    items.pointee = NSArray(array: item.isEmpty ? [] : [NSDictionary(dictionary: item)])
    return errSecSuccess
}
