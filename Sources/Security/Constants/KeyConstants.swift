// Values of `kSecAttrKeyClass` and `kSecAttrKeyType`, as Apple stores them.

/// A public key.
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// A private key.
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// A symmetric key.
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
/// RSA.
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// Elliptic curve (the same as `kSecAttrKeyTypeECSECPrimeRandom`).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// Elliptic curve over a prime field (P-256, P-384, P-521).
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// AES (macOS).
nonisolated(unsafe) public let kSecAttrKeyTypeAES: CFString = "2147483649"

/// In `SecKeyCreateRandomKey`'s parameters: a dictionary of attributes for the private key alone.
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// In `SecKeyCreateRandomKey`'s parameters: a dictionary of attributes for the public key alone.
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"
/// In `SecKeyCopyKeyExchangeResult`'s parameters: how many bytes the KDF variants derive (a number).
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
/// In `SecKeyCopyKeyExchangeResult`'s parameters: the KDF variants' SharedInfo (data).
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"
