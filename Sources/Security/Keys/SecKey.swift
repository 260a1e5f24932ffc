import ClavisClient
import ClavisCore
import ClavisCrypto

/// A public or private EC or RSA key in memory (Apple's `SecKey`); made by `SecKeyCreateRandomKey`,
/// `SecKeyCreateWithData` or `SecKeyCopyPublicKey`.
///
/// Immutable once made (the key is OpenSSL's, the attributes an immutable dictionary), so it may be shared
/// between threads.
public final class SecKey: @unchecked Sendable {
    /// The key itself; for a key a token holds, its public key.
    let key: AsymmetricKey
    /// For a private key the keychain service holds (`kSecAttrTokenIDSecureEnclave`): its item, which every
    /// private-key operation goes to.
    let token: TokenHandle?
    /// The attributes the caller gave (tag, label, usage flags), returned by `SecKeyCopyAttributes`.
    let givenAttributes: NSDictionary
    /// For a generated private key: the attributes its public key is made with by `SecKeyCopyPublicKey`.
    let publicKeyAttributes: NSDictionary

    init(
        key: AsymmetricKey, attributes: [String: Any], publicKeyAttributes: [String: Any] = [:],
        token: TokenHandle? = nil
    ) {
        self.key = key
        self.token = token
        self.givenAttributes = NSDictionary(dictionary: attributes)
        self.publicKeyAttributes = NSDictionary(dictionary: publicKeyAttributes)
    }

    /// True for a private key, held here or by a token.
    var isPrivate: Bool { token != nil || key.isPrivate }
}

/// Where a token-held private key is, and how calls on it authenticate (the context and interface the call that
/// made or found the key was given).
struct TokenHandle: Sendable {
    /// Where the service finds the private key.
    enum Holding: Sendable {
        /// In its key item (a permanent key).
        case item(PersistentReference)
        /// In the box the service sealed it in, which only this `SecKey` keeps (a key that is not permanent).
        case sealed([UInt8])
    }

    /// Where the private key is.
    let holding: Holding
    /// The authentication options of every use.
    let authentication: CallAuthentication

    /// True for a key that no item holds.
    var isSealed: Bool {
        if case .sealed = holding { true } else { false }
    }

    /// Runs `use` in the keychain service with the key's private key.
    func run(_ use: KeyUse) throws(KeychainError) -> SecureBytes {
        switch holding {
        case .item(let reference):
            try KeychainClient().useKey(reference, for: use, authentication: authentication)
        case .sealed(let box):
            try KeychainClient().useSealedKey(box, for: use, authentication: authentication)
        }
    }
}

extension SecKey: Equatable {
    /// True for keys of the same class with the same public key, as `CFEqual` finds them.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.isPrivate == rhs.isPrivate
            && (try? lhs.key.publicRepresentation()) == (try? rhs.key.publicRepresentation())
    }
}

extension SecKey: CustomStringConvertible {
    /// The algorithm, class and size in the manner of Apple's description; never key material.
    public var description: String { key.summary(isPrivate: isPrivate) }
}

/// Returns the type identifier of keys: what `CFGetTypeID` answers for a `SecKey`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyGetTypeID() -> CFTypeID { CoreFoundationTypeID.key.rawValue }

/// Hands `reason` back through a `CFError` out-parameter as an `NSOSStatusErrorDomain` error with `code`.
func reportKeyError(
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ code: KeychainError.Code, _ reason: String
) {
    reportKeyError(errorOut, KeychainError(code, reason))
}

/// Hands `error` back through a `CFError` out-parameter as an `NSOSStatusErrorDomain` error.
func reportKeyError(_ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ error: KeychainError) {
    errorOut?.pointee = Unmanaged.passRetained(NSError(keychainError: error))
}
