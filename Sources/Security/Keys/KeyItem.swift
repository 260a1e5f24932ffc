import ClavisClient
import ClavisCore
import ClavisCrypto

/// The mapping between a `SecKey` and a `kSecClassKey` item: the attributes Apple derives from a key, the secret
/// (the key's external representation) and the key made again from a stored item.
enum KeyItem {
    /// `kSecAttrKeyClass` codes.
    static let publicClass: Int64 = 0
    static let privateClass: Int64 = 1
    static let symmetricClass: Int64 = 2
    /// `kSecAttrKeyType` codes of the keys Clavis makes (43, Apple's older ECDSA code, reads as EC).
    static let rsaType: Int64 = 42
    static let ellipticCurveType: Int64 = 73

    /// Removes `kSecAttrKeyClass` and `kSecAttrKeyType` from `query` and returns them as Apple's numeric codes:
    /// callers give the `kSecAttrKeyClass*` and `kSecAttrKeyType*` strings ("1", "73") or numbers.
    ///
    /// - Throws: `param` for a class other than 0, 1 or 2, or a type that is not a decimal code.
    static func takeCodes(_ query: inout QueryDictionary) throws(KeychainError) -> [AttributeKey: AttributeValue] {
        var codes: [AttributeKey: AttributeValue] = [:]
        if let value = query.take(kSecAttrKeyClass) {
            guard let code = code(value), (publicClass...symmetricClass).contains(code) else {
                throw KeychainError(.param, "kSecAttrKeyClass must be a kSecAttrKeyClass value")
            }
            codes[.keyClass] = .number(code)
        }
        if let value = query.take(kSecAttrKeyType) {
            guard let code = code(value) else {
                throw KeychainError(.param, "kSecAttrKeyType must be a kSecAttrKeyType value")
            }
            codes[.keyType] = .number(code)
        }
        return codes
    }

    /// A code given as a decimal string or a whole number.
    private static func code(_ value: Any) -> Int64? {
        if let text = value as? String { return text.count <= 18 ? Int64(text) : nil }
        return try? ValueDecoding.integer(value, key: "")
    }

    /// What `SecItemAdd` stores for a key given as `kSecValueRef` or as `kSecValueData` (with its class and type
    /// among `attributes`): the attributes derived from the key beside the caller's, and the external
    /// representation as the secret.
    ///
    /// The key's class, type and sizes are the key's own; the caller's label, tag, flags and even application label
    /// are kept. A symmetric key's bytes are stored as given, its size derived from them.
    ///
    /// - Throws: `param` when neither is given, the class or type is missing, or the data is not a key of them.
    static func forAdd(
        reference: SecKey?, data: Data?, attributes given: [AttributeKey: AttributeValue]
    ) throws(KeychainError) -> (attributes: [AttributeKey: AttributeValue], secret: SecureBytes) {
        var attributes = given
        let key: AsymmetricKey
        if let reference {
            guard reference.token == nil else {
                // A key a token holds is in the keychain already: its item is the only one it has.
                throw KeychainError(.duplicateItem, "a key held by a token is stored already")
            }
            key = reference.key
        } else if let data {
            guard case .number(let keyClass) = given[.keyClass] else {
                throw KeychainError(.param, "a key given as kSecValueData needs kSecAttrKeyClass")
            }
            let bytes = SecureBytes(data)
            if keyClass == symmetricClass {
                attributes[.keySizeInBits] = attributes[.keySizeInBits] ?? .number(Int64(data.count * 8))
                attributes[.effectiveKeySize] = attributes[.effectiveKeySize] ?? attributes[.keySizeInBits]
                return (attributes, bytes)
            }
            guard case .number(let type) = given[.keyType] else {
                throw KeychainError(.param, "a key given as kSecValueData needs kSecAttrKeyType")
            }
            key = try parse(bytes, keyClass: keyClass, type: type)
        } else if TokenKey.isHeld(given) {
            // SecKeyCreateRandomKey's token key: the keychain service generates it and derives the rest.
            return (given, SecureBytes(Data()))
        } else {
            throw KeychainError(.param, "a key item needs kSecValueRef or kSecValueData")
        }
        let secret: SecureBytes
        let publicBytes: [UInt8]
        do throws(CryptoError) {
            publicBytes = try key.publicRepresentation()
            secret = key.isPrivate ? try key.privateRepresentation() : SecureBytes(publicBytes)
        } catch {
            throw KeychainError(.param, "the key could not be exported")
        }
        for (name, value) in derivedAttributes(of: key, publicBytes: publicBytes) {
            let isFact = name == .keyClass || name == .keyType || name == .keySizeInBits || name == .effectiveKeySize
            if isFact || attributes[name] == nil { attributes[name] = value }
        }
        return (attributes, secret)
    }

    /// What a query's `kSecValueRef` key selects: its class and application label.
    static func matching(_ reference: SecKey) -> [AttributeKey: AttributeValue] {
        guard let publicBytes = try? reference.key.publicRepresentation() else { return [:] }
        return [
            .keyClass: .number(reference.isPrivate ? privateClass : publicClass),
            .applicationLabel: .data(Data(DigestAlgorithm.sha1.hash(publicBytes))),
        ]
    }

    /// The attributes Apple derives from a key: class, type, sizes, application label (SHA-1 of the public key's
    /// external representation), `perm` (an item is in the keychain) and the usage flags `SecKeyCopyAttributes`
    /// reports.
    private static func derivedAttributes(of key: AsymmetricKey, publicBytes: [UInt8]) -> [AttributeKey:
        AttributeValue]
    {
        let isPrivate = key.isPrivate
        let type =
            switch key.kind {
            case .rsa: rsaType
            case .ellipticCurve: ellipticCurveType
            }
        return [
            .keyClass: .number(isPrivate ? privateClass : publicClass),
            .keyType: .number(type),
            .keySizeInBits: .number(Int64(key.bitCount)), .effectiveKeySize: .number(Int64(key.bitCount)),
            .applicationLabel: .data(Data(DigestAlgorithm.sha1.hash(publicBytes))),
            .isPermanent: .bool(true), .isSensitive: .bool(false), .isExtractable: .bool(true), .canDerive: .bool(true),
            .canSign: .bool(isPrivate), .canDecrypt: .bool(isPrivate), .canUnwrap: .bool(isPrivate),
            .canVerify: .bool(!isPrivate), .canEncrypt: .bool(!isPrivate), .canWrap: .bool(!isPrivate),
        ]
    }

    /// An EC or RSA key from its external representation.
    private static func parse(_ bytes: SecureBytes, keyClass: Int64, type: Int64) throws(KeychainError)
        -> AsymmetricKey
    {
        let isPrivate = keyClass == privateClass
        guard type == ellipticCurveType || type == 43 || type == rsaType else {
            throw KeychainError(.param, "kSecAttrKeyType \(type) is not a supported key type")
        }
        do throws(CryptoError) {
            return type == rsaType
                ? try AsymmetricKey.rsa(pkcs1: bytes, isPrivate: isPrivate)
                : try AsymmetricKey.ellipticCurve(x963: bytes, isPrivate: isPrivate)
        } catch {
            throw KeychainError(.param, "kSecValueData is not a key of the class and type given")
        }
    }

    /// The `SecKey` of a stored key item whose secret was read, or nil (a symmetric key, a secret not loaded):
    /// its attributes are the item's, so `SecKeyCopyAttributes` reports it permanent with its tag and label.
    ///
    /// A key a token holds comes back with its public key (what the service hands out as its secret) and its item's
    /// reference, through which it is used with `authentication`.
    static func reference(for item: Item, authentication: CallAuthentication = CallAuthentication()) -> SecKey? {
        if item.itemClass == .key, TokenKey.isHeld(item.attributes) {
            guard let secret = item.secret,
                let publicKey = try? AsymmetricKey.ellipticCurve(x963: secret, isPrivate: false)
            else { return nil }
            var attributes = ResultShape.attributes(of: item)
            attributes[kSecAttrIsPermanent as String] = true
            return SecKey(
                key: publicKey, attributes: attributes,
                token: TokenHandle(reference: item.persistentReference, authentication: authentication))
        }
        guard item.itemClass == .key, let secret = item.secret,
            case .number(let keyClass) = item.attributes[.keyClass], keyClass != symmetricClass,
            case .number(let type) = item.attributes[.keyType],
            let key = try? parse(secret, keyClass: keyClass, type: type)
        else { return nil }
        var attributes = ResultShape.attributes(of: item)
        attributes[kSecAttrIsPermanent as String] = true
        return SecKey(key: key, attributes: attributes)
    }
}
