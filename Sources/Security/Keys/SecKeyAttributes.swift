import ClavisClient
import ClavisCore
import ClavisCrypto

/// Returns the key's attributes as Apple does: `kSecAttrKeyClass`, `kSecAttrKeyType`, `kSecAttrKeySizeInBits`,
/// `kSecAttrEffectiveKeySize`, `kSecAttrApplicationLabel` (SHA-1 of the public key's external representation),
/// the usage flags, `kSecValueData` (the external representation) for a public key, and the attributes given when
/// the key was made (tag, label).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    let isPrivate = key.isPrivate
    guard var derived = try? KeyItemFormat.derivedAttributes(of: key.key, isPrivate: isPrivate),
        let publicBytes = try? KeyItemFormat.publicRepresentation(of: key.key)
    else { return nil }
    // A key in memory is not in the keychain; a stored key's own attributes say it is.
    derived[.isPermanent] = .bool(false)
    var attributes: [String: Any] = [kSecClass as String: kSecClassKey]
    for (name, value) in derived { attributes[name.rawValue] = ResultShape.object(for: value) }
    attributes[kSecAttrKeyClass as String] = isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic
    // Apple adds kSecValueData, the external representation, for private keys too; Clavis leaves the private
    // bytes out, since attribute dictionaries get printed and logged (SecKeyCopyExternalRepresentation exports
    // them when asked).
    if !isPrivate { attributes[kSecValueData as String] = Data(publicBytes) as NSData }
    switch KeyType(of: key.key) {
    case .ellipticCurve: attributes[kSecAttrKeyType as String] = kSecAttrKeyTypeECSECPrimeRandom
    case .rsa: attributes[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA
    }
    // The caller's tag, label and usage flags are kept; what the key itself says (class, type, sizes, label hash,
    // data) is never overridden by an attribute given when it was made.
    let facts: Set<String> = [
        kSecAttrKeyClass as String, kSecAttrKeyType as String, kSecAttrKeySizeInBits as String,
        kSecAttrEffectiveKeySize as String, kSecAttrApplicationLabel as String, kSecValueData as String,
        kSecClass as String,
    ]
    for case (let name as String, let value) in key.givenAttributes where !facts.contains(name) {
        attributes[name] = value
    }
    if key.token != nil {
        // The key a token holds: sensitive, never extractable, and named by its token.
        attributes[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave
        attributes[kSecAttrIsSensitive as String] = kCFBooleanTrue!
        attributes[kSecAttrIsExtractable as String] = kCFBooleanFalse!
    }
    return NSDictionary(dictionary: attributes)
}

/// Returns Apple's block size in bytes: an RSA modulus' length, or an EC coordinate's (32 for P-256).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyGetBlockSize(_ key: SecKey) -> Int {
    key.key.blockByteCount
}

/// True when `key` can run `algorithm` for `operation`: signing and decryption with private keys, verification
/// and encryption with public keys, key exchange with private EC keys, each only for its key type.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyIsAlgorithmSupported(
    _ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm
) -> Bool {
    KeyAlgorithm(algorithm)?.supports(operation, with: key.key, isPrivate: key.isPrivate) ?? false
}

/// The plan for `algorithm` when `key` supports it for `operation`; otherwise reports Apple's
/// `errSecParam` with Apple's text ("<algorithm>: algorithm not supported by the key <key>") and answers nil.
func supportedPlan(
    _ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> KeyAlgorithm? {
    do throws(KeychainError) {
        return try KeyAlgorithm.supported(
            named: algorithm.rawValue as String, for: operation.keyOperation, key: key.key, isPrivate: key.isPrivate)
    } catch {
        reportKeyError(errorOut, error)
        return nil
    }
}

extension NSData {
    /// The bytes as an array (public data only: signatures, ciphertext, public keys).
    var byteArray: [UInt8] { [UInt8](UnsafeRawBufferPointer(start: bytes, count: length)) }
    /// The bytes copied into a zeroing buffer (plaintext, key material).
    var secureBytes: SecureBytes { SecureBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length)) }
}
