import ClavisClient
import ClavisCore
import ClavisCrypto

/// Generates a new private key (EC P-256/P-384/P-521 or RSA 1024–4096 bits) in memory.
///
/// `parameters` gives `kSecAttrKeyType` and `kSecAttrKeySizeInBits`, and may give `kSecPrivateKeyAttrs` and
/// `kSecPublicKeyAttrs` (dictionaries) and attributes for both keys such as `kSecAttrApplicationTag` and
/// `kSecAttrLabel`, which `SecKeyCopyAttributes` returns. Returns nil with an `errSecParam` error for a missing or
/// unsupported type or size.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCreateRandomKey(
    _ parameters: CFDictionary, _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    var shared: [String: Any] = [:]
    for case (let name as String, let value) in parameters { shared[name] = value }
    let privateAttributes = dictionary(shared.removeValue(forKey: kSecPrivateKeyAttrs as String))
    let publicAttributes = dictionary(shared.removeValue(forKey: kSecPublicKeyAttrs as String))
    if let token = shared.removeValue(forKey: kSecAttrTokenID as String) {
        return tokenKey(
            token, shared: shared, privateAttributes: privateAttributes, publicAttributes: publicAttributes, errorOut)
    }
    let type = shared.removeValue(forKey: kSecAttrKeyType as String)
    let size = integer(shared.removeValue(forKey: kSecAttrKeySizeInBits as String))
    do throws(KeychainError) {
        guard let code = keyTypeName(type).flatMap({ Int64($0) }), let keyType = KeyType(rawValue: code), let size
        else {
            throw KeychainError(.param, "kSecAttrKeyType and kSecAttrKeySizeInBits must name a supported key")
        }
        let key = try KeySpecification(type: keyType, bits: size).generate()
        let generated = SecKey(
            key: key, attributes: shared.merging(privateAttributes) { _, new in new },
            publicKeyAttributes: shared.merging(publicAttributes) { _, new in new })
        // As Apple's header says, a top-level kSecAttrIsPermanent stores the key pair; kSecPublicKeyAttrs may say
        // otherwise for the public key.
        return storedIfPermanent(
            generated, publicKeyAttributes: shared.merging(publicAttributes) { _, new in new }, errorOut)
    } catch {
        reportKeyError(errorOut, error)
        return nil
    }
}

/// Makes a key from Apple's external representation: ANSI X9.63 (`04 ‖ X ‖ Y`, then `‖ K` for a private key) for
/// EC, PKCS#1 DER (RSAPublicKey, RSAPrivateKey) for RSA.
///
/// `attributes` must give `kSecAttrKeyType` and `kSecAttrKeyClass` (Apple's codes, as strings or numbers).
/// Malformed data (truncated, a point off the curve, trailing bytes) answers nil with an `errSecParam` error, as
/// does an unknown type or class; a symmetric key answers `errSecUnimplemented`, as on Apple platforms.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    var given: [String: Any] = [:]
    for case (let name as String, let value) in attributes { given[name] = value }
    let keyClass = keyTypeName(given[kSecAttrKeyClass as String])
    if keyClass == kSecAttrKeyClassSymmetric as String {
        reportKeyError(errorOut, .unimplemented, "Unsupported symmetric key type")
        return nil
    }
    guard keyClass == kSecAttrKeyClassPublic as String || keyClass == kSecAttrKeyClassPrivate as String else {
        reportKeyError(errorOut, .param, "Unsupported key class")
        return nil
    }
    let isPrivate = keyClass == kSecAttrKeyClassPrivate as String
    let bytes = SecureBytes(copying: UnsafeRawBufferPointer(start: keyData.bytes, count: keyData.length))
    // 43 is Apple's older code for ECDSA keys, which it still reads as EC.
    guard let code = keyTypeName(given[kSecAttrKeyType as String]).flatMap({ Int64($0) }),
        let type = KeyType(code: code)
    else {
        reportKeyError(errorOut, .param, "Unsupported \(isPrivate ? "private" : "public") key type")
        return nil
    }
    do throws(KeychainError) {
        let key = try KeyItemFormat.key(
            externalRepresentation: bytes, keyClass: (isPrivate ? KeyClass.privateKey : .publicKey).rawValue,
            type: code)
        given.removeValue(forKey: kSecAttrKeyType as String)
        given.removeValue(forKey: kSecAttrKeyClass as String)
        given.removeValue(forKey: kSecAttrKeySizeInBits as String)
        return SecKey(key: key, attributes: given)
    } catch {
        let algorithm = type == .rsa ? "RSA" : "EC"
        reportKeyError(
            errorOut, .param, "\(algorithm) \(isPrivate ? "private" : "public") key creation from data failed")
        return nil
    }
}

/// Returns the public key of a private key (or the key itself when it is public).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    guard key.isPrivate else { return key }
    var attributes: [String: Any] = [:]
    for case (let name as String, let value) in key.publicKeyAttributes { attributes[name] = value }
    // A token-held key's public key is all this process has of it.
    if key.token != nil { return SecKey(key: key.key, attributes: attributes) }
    guard let publicKey = try? key.key.publicKey() else { return nil }
    return SecKey(key: publicKey, attributes: attributes)
}

/// Returns the key's external representation: ANSI X9.63 for EC keys, PKCS#1 DER for RSA keys.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCopyExternalRepresentation(
    _ key: SecKey, _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    if key.token != nil {
        // As Apple's: the private key a token holds is not exportable, by any call.
        reportKeyError(errorOut, .unimplemented, "export of a key held by a token is not possible")
        return nil
    }
    do throws(CryptoError) {
        guard key.key.isPrivate else { return Data(try key.key.publicRepresentation()) as NSData }
        // The caller asked for the private bytes: they leave the zeroing buffer only here, into the CFData.
        return try key.key.privateRepresentation().withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    } catch {
        reportKeyError(errorOut, .param, "the key could not be exported")
        return nil
    }
}

/// Stores a generated private key in the keychain when its attributes say `kSecAttrIsPermanent` (given at the top
/// level or in `kSecPrivateKeyAttrs`), and its public key when its own (the top level's, or `kSecPublicKeyAttrs`)
/// say so, each with its
/// attributes (tag, label, access group, accessibility, access control), as `SecItemAdd` would with `kSecValueRef`.
/// Answers the key (its public key reporting whether it was stored), or nil with `SecItemAdd`'s error.
private func storedIfPermanent(
    _ generated: SecKey, publicKeyAttributes: [String: Any], _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    var privateAttributes: [String: Any] = [:]
    for case (let name as String, let value) in generated.givenAttributes { privateAttributes[name] = value }
    let privateIsPermanent = isTrue(privateAttributes[kSecAttrIsPermanent as String])
    let publicIsPermanent = isTrue(publicKeyAttributes[kSecAttrIsPermanent as String])
    guard privateIsPermanent || publicIsPermanent else { return generated }
    var publicAttributes: [String: Any] = [:]
    for case (let name as String, let value) in generated.publicKeyAttributes { publicAttributes[name] = value }
    publicAttributes[kSecAttrIsPermanent as String] = publicIsPermanent
    let stored = SecKey(key: generated.key, attributes: privateAttributes, publicKeyAttributes: publicAttributes)
    do throws(KeychainError) {
        let privateReference = privateIsPermanent ? try addKeyItem(stored, attributes: privateAttributes) : nil
        if publicIsPermanent, let publicKey = SecKeyCopyPublicKey(stored) {
            do throws(KeychainError) {
                _ = try addKeyItem(publicKey, attributes: publicAttributes)
            } catch {
                // The pair is stored whole or not at all.
                if let privateReference {
                    _ = try? ItemOperations.delete([kSecValuePersistentRef as String: privateReference] as NSDictionary)
                }
                throw error
            }
        }
    } catch {
        errorOut?.pointee = Unmanaged.passRetained(NSError(keychainError: error))
        return nil
    }
    return stored
}

/// Adds `key` as a `kSecClassKey` item with the item attributes among `attributes`; answers its persistent reference.
func addKeyItem(_ key: SecKey, attributes: [String: Any]) throws(KeychainError) -> Data {
    var item = attributes
    for name in [kSecAttrKeyType, kSecAttrKeySizeInBits, kSecAttrKeyClass, kSecAttrTokenID] {
        item.removeValue(forKey: name as String)
    }
    item[kSecClass as String] = kSecClassKey
    item[kSecValueRef as String] = key
    item[kSecAttrIsPermanent as String] = true
    item[kSecReturnPersistentRef as String] = true
    var result: CFTypeRef?
    try ItemOperations.add(item as NSDictionary, &result)
    guard let reference = result as? Data else {
        throw KeychainError(.internal, "the stored key came back without its persistent reference")
    }
    return reference
}

/// The attributes in a nested attributes dictionary (empty when absent or not a dictionary).
func dictionary(_ value: Any?) -> [String: Any] {
    guard let nested = value as? NSDictionary else { return [:] }
    var result: [String: Any] = [:]
    for case (let name as String, let value) in nested { result[name] = value }
    return result
}

/// An integer given as a number or a decimal string.
func integer(_ value: Any?) -> Int? {
    if let number = value as? NSNumber { return number.intValue }
    if let text = value as? String { return Int(text) }
    return nil
}

/// A boolean given as a boolean or number.
func isTrue(_ value: Any?) -> Bool {
    (value as? NSNumber)?.boolValue ?? false
}

/// A `kSecAttrKeyType` or `kSecAttrKeyClass` value as Apple's decimal code ("73" for EC, "42" for RSA, "1" for
/// private), from a string or number.
func keyTypeName(_ value: Any?) -> String? {
    if let text = value as? String { return text }
    if let number = value as? NSNumber { return number.stringValue }
    return nil
}
