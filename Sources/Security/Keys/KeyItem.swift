import ClavisClient
import ClavisCore
import ClavisCrypto

/// The dictionary side of the mapping between a `SecKey` and a `kSecClassKey` item: Apple's class and type codes
/// read from a dictionary, and `SecKey` objects around `KeyItemFormat` and `StoredKey`, which hold the mapping.
enum KeyItem {
    /// Removes `kSecAttrKeyClass` and `kSecAttrKeyType` from `query` and returns them as Apple's numeric codes:
    /// callers give the `kSecAttrKeyClass*` and `kSecAttrKeyType*` strings ("1", "73") or numbers.
    ///
    /// - Throws: `param` for a class other than 0, 1 or 2, or a type that is not a decimal code.
    static func takeCodes(_ query: inout QueryDictionary) throws(KeychainError) -> [AttributeKey: AttributeValue] {
        var codes: [AttributeKey: AttributeValue] = [:]
        if let value = query.take(.keyClass) {
            guard let code = code(value), KeyClass(rawValue: code) != nil else {
                throw KeychainError(.param, "kSecAttrKeyClass must be a kSecAttrKeyClass value")
            }
            codes[.keyClass] = .number(code)
        }
        if let value = query.take(.keyType) {
            guard let code = code(value) else {
                throw KeychainError(.param, "kSecAttrKeyType must be a kSecAttrKeyType value")
            }
            codes[.keyType] = .number(code)
        }
        return codes
    }

    /// A code given as a decimal string or a whole number.
    private static func code(_ value: QueryValue) -> Int64? {
        if let text = value.string { return text.count <= 18 ? Int64(text) : nil }
        return try? ValueDecoding.integer(value, key: "")
    }

    /// What `SecItemAdd` stores for a key given as `kSecValueRef` or as `kSecValueData` (with its class and type
    /// among `attributes`): `KeyItemFormat`'s item, the attributes derived from the key beside the caller's and the
    /// external representation as the secret.
    ///
    /// - Throws: `param` when neither is given, the class or type is missing, or the data is not a key of them.
    static func forAdd(
        reference: SecKey?, data: Data?, attributes given: [AttributeKey: AttributeValue]
    ) throws(KeychainError) -> (attributes: [AttributeKey: AttributeValue], secret: SecureBytes) {
        let item: NewItem
        if let reference {
            if let token = reference.token {
                guard token.isSealed else {
                    // A key a token holds is in the keychain already: its item is the only one it has.
                    throw KeychainError(.duplicateItem, "a key held by a token is stored already")
                }
                // SecItemAdd of the key alone stores it (`ItemOperations.addSealedKey`); beside a certificate, not.
                throw KeychainError(
                    .param, "a key the token holds without an item is stored by SecItemAdd of the key, then paired")
            }
            item = try KeyItemFormat.newItem(for: reference.key, attributes: given)
        } else if let data {
            item = try KeyItemFormat.newItem(externalRepresentation: SecureBytes(data), attributes: given)
        } else if TokenKey.isHeld(given) {
            // SecKeyCreateRandomKey's token key: the keychain service generates it and derives the rest.
            return (given, SecureBytes(Data()))
        } else {
            throw KeychainError(.param, "a key item needs kSecValueRef or kSecValueData")
        }
        return (item.attributes, item.secret)
    }

    /// What a query's `kSecValueRef` key selects: its class and application label.
    static func matching(_ reference: SecKey) -> [AttributeKey: AttributeValue] {
        KeyItemFormat.matchingAttributes(of: reference.key, isPrivate: reference.isPrivate)
    }

    /// The `SecKey` of a stored key item whose secret was read, or nil (a symmetric key, a secret not loaded):
    /// its attributes are the item's, so `SecKeyCopyAttributes` reports it permanent with its tag and label.
    ///
    /// A key a token holds comes back with its public key (what the service hands out as its secret) and its item's
    /// reference, through which it is used with `authentication`.
    static func reference(for item: Item, authentication: CallAuthentication = CallAuthentication()) -> SecKey? {
        guard let stored = StoredKey(item) else { return nil }
        var attributes = ResultShape.attributes(of: item)
        attributes[kSecAttrIsPermanent as String] = true
        let token =
            stored.isTokenHeld
            ? TokenHandle(holding: .item(item.persistentReference), authentication: authentication) : nil
        return SecKey(key: stored.key, attributes: attributes, token: token)
    }
}
