public import ClavisCore
public import ClavisCrypto
public import FoundationEssentials

/// The mapping between an `AsymmetricKey` and a `kSecClassKey` item, as Apple's keychain stores keys: the attributes
/// Apple derives from a key (class, type, sizes, application label, `perm` and the usage flags), the secret (the
/// key's external representation: ANSI X9.63 for EC, PKCS#1 DER for RSA) and the key read back from a stored item.
public enum KeyItemFormat {
    /// The application label (`klbl`) of `key`: SHA-1 of its public key's external representation, which a
    /// certificate's public key hash (`pkhh`) names.
    ///
    /// - Throws: `param` when the key cannot be exported.
    public static func applicationLabel(of key: AsymmetricKey) throws(KeychainError) -> Data {
        Data(DigestAlgorithm.sha1.hash(try publicRepresentation(of: key)))
    }

    /// The attributes Apple derives from a key: class, type, sizes, application label, `perm` (an item is in the
    /// keychain) and the usage flags `SecKeyCopyAttributes` reports (a private key signs, decrypts and unwraps; a
    /// public key verifies, encrypts and wraps; both derive).
    ///
    /// `isPrivate` says whether the key is private: a private key a token holds is, though only its public key is
    /// here.
    ///
    /// - Throws: `param` when the key cannot be exported.
    public static func derivedAttributes(of key: AsymmetricKey, isPrivate: Bool? = nil) throws(KeychainError)
        -> [AttributeKey: AttributeValue]
    {
        let isPrivate = isPrivate ?? key.isPrivate
        return [
            .keyClass: .number((isPrivate ? KeyClass.privateKey : .publicKey).rawValue),
            .keyType: .number(KeyType(of: key).rawValue),
            .keySizeInBits: .number(Int64(key.bitCount)), .effectiveKeySize: .number(Int64(key.bitCount)),
            .applicationLabel: .data(try applicationLabel(of: key)),
            .isPermanent: .bool(true), .isSensitive: .bool(false), .isExtractable: .bool(true), .canDerive: .bool(true),
            .canSign: .bool(isPrivate), .canDecrypt: .bool(isPrivate), .canUnwrap: .bool(isPrivate),
            .canVerify: .bool(!isPrivate), .canEncrypt: .bool(!isPrivate), .canWrap: .bool(!isPrivate),
        ]
    }

    /// The attributes that are facts of the key, which replace any a caller gives: class, type and sizes.
    public static let keyFacts: Set<AttributeKey> = [.keyClass, .keyType, .keySizeInBits, .effectiveKeySize]

    /// What the keychain stores for `key`: the derived attributes beside `attributes` (the key's class, type and
    /// sizes replace the caller's; the caller's label, tag, flags and even application label are kept), and the
    /// external representation (the private one for a private key) as the secret.
    ///
    /// - Throws: `param` when the key cannot be exported.
    public static func newItem(for key: AsymmetricKey, attributes given: [AttributeKey: AttributeValue] = [:])
        throws(KeychainError) -> NewItem
    {
        var attributes = given
        for (name, value) in try derivedAttributes(of: key) where keyFacts.contains(name) || attributes[name] == nil {
            attributes[name] = value
        }
        return NewItem(itemClass: .key, attributes: attributes, secret: try externalRepresentation(of: key))
    }

    /// What the keychain stores for a key given as its external representation, with its class and type among
    /// `attributes` (`kSecValueData` in `SecItemAdd`): a symmetric key's bytes as given, its sizes derived from them;
    /// an EC or RSA key parsed, then as `newItem(for:attributes:)`.
    ///
    /// - Throws: `param` when the class or type is missing or the bytes are not a key of them.
    public static func newItem(
        externalRepresentation bytes: SecureBytes, attributes given: [AttributeKey: AttributeValue]
    )
        throws(KeychainError) -> NewItem
    {
        guard case .number(let keyClass) = given[.keyClass] else {
            throw KeychainError(.param, "a key given as kSecValueData needs kSecAttrKeyClass")
        }
        if keyClass == KeyClass.symmetric.rawValue {
            var attributes = given
            attributes[.keySizeInBits] = attributes[.keySizeInBits] ?? .number(Int64(bytes.count * 8))
            attributes[.effectiveKeySize] = attributes[.effectiveKeySize] ?? attributes[.keySizeInBits]
            return NewItem(itemClass: .key, attributes: attributes, secret: bytes)
        }
        guard case .number(let type) = given[.keyType] else {
            throw KeychainError(.param, "a key given as kSecValueData needs kSecAttrKeyType")
        }
        return try newItem(for: key(externalRepresentation: bytes, keyClass: keyClass, type: type), attributes: given)
    }

    /// An EC or RSA key from its external representation, of the class and type given as Apple's codes.
    ///
    /// - Throws: `param` for a type other than EC or RSA, or bytes that are not a key of that class and type.
    public static func key(externalRepresentation bytes: SecureBytes, keyClass: Int64, type: Int64)
        throws(KeychainError) -> AsymmetricKey
    {
        let isPrivate = keyClass == KeyClass.privateKey.rawValue
        guard let keyType = KeyType(code: type) else {
            throw KeychainError(.param, "kSecAttrKeyType \(type) is not a supported key type")
        }
        do throws(CryptoError) {
            switch keyType {
            case .rsa: return try AsymmetricKey.rsa(pkcs1: bytes, isPrivate: isPrivate)
            case .ellipticCurve: return try AsymmetricKey.ellipticCurve(x963: bytes, isPrivate: isPrivate)
            }
        } catch {
            throw KeychainError(.param, "kSecValueData is not a key of the class and type given")
        }
    }

    /// The key a stored key item holds, read from its secret; nil for a symmetric key, an item whose secret was not
    /// read, or a key held by a token (whose secret is its public key: see `StoredKey`).
    public static func key(of item: Item) -> AsymmetricKey? {
        guard item.itemClass == .key, !TokenKey.isHeld(item.attributes), let secret = item.secret,
            case .number(let keyClass) = item.attributes[.keyClass], keyClass != KeyClass.symmetric.rawValue,
            case .number(let type) = item.attributes[.keyType]
        else { return nil }
        return try? key(externalRepresentation: secret, keyClass: keyClass, type: type)
    }

    /// What a query for `key` matches: its class (private when `isPrivate`) and application label.
    public static func matchingAttributes(of key: AsymmetricKey, isPrivate: Bool) -> [AttributeKey: AttributeValue] {
        guard let label = try? applicationLabel(of: key) else { return [:] }
        return [
            .keyClass: .number((isPrivate ? KeyClass.privateKey : .publicKey).rawValue),
            .applicationLabel: .data(label),
        ]
    }

    /// The key's external representation: the private one (in a zeroing buffer) for a private key, else the
    /// public one.
    ///
    /// - Throws: `param` when the key cannot be exported.
    public static func externalRepresentation(of key: AsymmetricKey) throws(KeychainError) -> SecureBytes {
        do throws(CryptoError) {
            return key.isPrivate ? try key.privateRepresentation() : SecureBytes(try key.publicRepresentation())
        } catch {
            throw KeychainError(.param, "the key could not be exported")
        }
    }

    /// The public key's external representation.
    ///
    /// - Throws: `param` when the key cannot be exported.
    public static func publicRepresentation(of key: AsymmetricKey) throws(KeychainError) -> [UInt8] {
        do throws(CryptoError) {
            return try key.publicRepresentation()
        } catch {
            throw KeychainError(.param, "the key could not be exported")
        }
    }
}
