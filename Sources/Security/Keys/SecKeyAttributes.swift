import ClavisCore
import ClavisCrypto

/// Returns the key's attributes as Apple does: `kSecAttrKeyClass`, `kSecAttrKeyType`, `kSecAttrKeySizeInBits`,
/// `kSecAttrEffectiveKeySize`, `kSecAttrApplicationLabel` (SHA-1 of the public key's external representation),
/// the usage flags, `kSecValueData` (the external representation) for a public key, and the attributes given when
/// the key was made (tag, label).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    let inner = key.key
    guard let publicBytes = try? inner.publicRepresentation() else { return nil }
    let isPrivate = key.isPrivate
    var attributes: [String: Any] = [
        kSecClass as String: kSecClassKey,
        kSecAttrIsSensitive as String: kCFBooleanFalse!,
        kSecAttrIsExtractable as String: kCFBooleanTrue!,
        kSecAttrKeyClass as String: isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic,
        kSecAttrKeySizeInBits as String: NSNumber(value: inner.bitCount),
        kSecAttrEffectiveKeySize as String: NSNumber(value: inner.bitCount),
        kSecAttrApplicationLabel as String: Data(DigestAlgorithm.sha1.hash(publicBytes)) as NSData,
        kSecAttrIsPermanent as String: kCFBooleanFalse!,
        kSecAttrCanSign as String: NSNumber(value: isPrivate),
        kSecAttrCanDecrypt as String: NSNumber(value: isPrivate),
        kSecAttrCanUnwrap as String: NSNumber(value: isPrivate),
        kSecAttrCanVerify as String: NSNumber(value: !isPrivate),
        kSecAttrCanEncrypt as String: NSNumber(value: !isPrivate),
        kSecAttrCanWrap as String: NSNumber(value: !isPrivate),
        kSecAttrCanDerive as String: kCFBooleanTrue!,
    ]
    // Apple adds kSecValueData, the external representation, for private keys too; Clavis leaves the private
    // bytes out, since attribute dictionaries get printed and logged (SecKeyCopyExternalRepresentation exports
    // them when asked).
    if !isPrivate { attributes[kSecValueData as String] = Data(publicBytes) as NSData }
    switch inner.kind {
    case .ellipticCurve: attributes[kSecAttrKeyType as String] = kSecAttrKeyTypeECSECPrimeRandom
    case .rsa: attributes[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA
    }
    // The caller's tag, label and usage flags are kept; what the key itself says (class, type, sizes, label hash,
    // data) is never overridden by an attribute given when it was made.
    let derived: Set<String> = [
        kSecAttrKeyClass as String, kSecAttrKeyType as String, kSecAttrKeySizeInBits as String,
        kSecAttrEffectiveKeySize as String, kSecAttrApplicationLabel as String, kSecValueData as String,
        kSecClass as String,
    ]
    for case (let name as String, let value) in key.givenAttributes where !derived.contains(name) {
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
    KeyAlgorithmPlan(algorithm)?.supports(operation, with: key.key, isPrivate: key.isPrivate) ?? false
}

/// The plan for `algorithm` when `key` supports it for `operation`; otherwise reports Apple's
/// `errSecParam` with Apple's text ("<algorithm>: algorithm not supported by the key <key>") and answers nil.
func supportedPlan(
    _ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm,
    _ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> KeyAlgorithmPlan? {
    guard let plan = KeyAlgorithmPlan(algorithm), plan.supports(operation, with: key.key, isPrivate: key.isPrivate)
    else {
        reportKeyError(errorOut, .param, "\(algorithm.rawValue): algorithm not supported by the key \(key)")
        return nil
    }
    return plan
}

extension NSData {
    /// The bytes as an array (public data only: signatures, ciphertext, public keys).
    var byteArray: [UInt8] { [UInt8](UnsafeRawBufferPointer(start: bytes, count: length)) }
    /// The bytes copied into a zeroing buffer (plaintext, key material).
    var secureBytes: SecureBytes { SecureBytes(copying: UnsafeRawBufferPointer(start: bytes, count: length)) }
}
