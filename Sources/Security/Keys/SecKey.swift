import ClavisCore
import ClavisCrypto

/// A public or private EC or RSA key in memory (Apple's `SecKey`); made by `SecKeyCreateRandomKey`,
/// `SecKeyCreateWithData` or `SecKeyCopyPublicKey`.
///
/// Immutable once made (the key is OpenSSL's, the attributes an immutable dictionary), so it may be shared
/// between threads.
public final class SecKey: @unchecked Sendable {
    /// The key itself.
    let key: AsymmetricKey
    /// The attributes the caller gave (tag, label, usage flags), returned by `SecKeyCopyAttributes`.
    let givenAttributes: NSDictionary
    /// For a generated private key: the attributes its public key is made with by `SecKeyCopyPublicKey`.
    let publicKeyAttributes: NSDictionary

    init(key: AsymmetricKey, attributes: [String: Any], publicKeyAttributes: [String: Any] = [:]) {
        self.key = key
        self.givenAttributes = NSDictionary(dictionary: attributes)
        self.publicKeyAttributes = NSDictionary(dictionary: publicKeyAttributes)
    }
}

extension SecKey: Equatable {
    /// True for keys of the same class with the same public key, as `CFEqual` finds them.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.key.isPrivate == rhs.key.isPrivate
            && (try? lhs.key.publicRepresentation()) == (try? rhs.key.publicRepresentation())
    }
}

extension SecKey: CustomStringConvertible {
    /// The algorithm, class and size in the manner of Apple's description; never key material.
    public var description: String {
        let type: String
        switch key.kind {
        case .ellipticCurve: type = key.isPrivate ? "ECPrivateKey" : "ECPublicKey"
        case .rsa: type = key.isPrivate ? "RSAPrivateKey" : "RSAPublicKey"
        }
        return "<SecKeyRef key type: \(type), block size: \(key.bitCount) bits>"
    }
}

/// Returns the type identifier of keys: what `CFGetTypeID` answers for a `SecKey`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyGetTypeID() -> CFTypeID { CoreFoundationTypeID.key.rawValue }

/// Hands `reason` back through a `CFError` out-parameter as an `NSOSStatusErrorDomain` error with `code`.
func reportKeyError(
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ code: KeychainError.Code, _ reason: String
) {
    errorOut?.pointee = Unmanaged.passRetained(NSError(keychainError: KeychainError(code, reason)))
}
