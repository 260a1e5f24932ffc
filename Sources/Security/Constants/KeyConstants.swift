// Values of `kSecAttrKeyClass` and `kSecAttrKeyType`; key items come in a later issue.

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
