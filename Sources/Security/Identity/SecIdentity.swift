import ClavisClient
import ClavisCore

/// A certificate with the private key whose public key it holds (Apple's `SecIdentity`); made by
/// `SecPKCS12Import`, `SecIdentityCreateWithCertificate` or a `kSecClassIdentity` search.
///
/// Immutable once made, so it may be shared between threads.
public final class SecIdentity: @unchecked Sendable {
    /// The certificate.
    let certificate: SecCertificate
    /// The private key.
    let privateKey: SecKey

    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

extension SecIdentity: Equatable {
    /// True for identities of the same certificate and private key, as `CFEqual` finds them.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }
}

extension SecIdentity: CustomStringConvertible {
    /// The certificate's description; never key material.
    public var description: String { "<SecIdentityRef \(certificate)>" }
}

/// Returns the type identifier of identities: what `CFGetTypeID` answers for a `SecIdentity`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecIdentityGetTypeID() -> CFTypeID { CoreFoundationTypeID.identity.rawValue }

/// Sets `certificateRef` to the identity's certificate and returns `errSecSuccess`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecIdentityCopyCertificate(
    _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// Sets `privateKeyRef` to the identity's private key and returns `errSecSuccess`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>)
    -> OSStatus
{
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

/// Makes the identity of `certificateRef` with the private key stored in the keychain whose application label is
/// the certificate's public key hash; `errSecItemNotFound` when the caller's groups hold no such key. Like Apple's
/// data-protection keychain, `keychainOrArray` is ignored.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecIdentityCreateWithCertificate(
    _ keychainOrArray: CFTypeRef?, _ certificateRef: SecCertificate, _ identityRef: UnsafeMutablePointer<SecIdentity?>
) -> OSStatus {
    identityRef.pointee = nil
    guard let hash = CertificateItemFormat.publicKeyHash(of: certificateRef.certificate) else {
        return errSecItemNotFound
    }
    let query: [String: Any] = [
        kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        kSecAttrApplicationLabel as String: Data(hash), kSecReturnRef as String: true,
    ]
    var found: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &found)
    guard status == errSecSuccess else { return status }
    guard let key = found as? SecKey else { return errSecItemNotFound }
    identityRef.pointee = SecIdentity(certificate: certificateRef, privateKey: key)
    return errSecSuccess
}
