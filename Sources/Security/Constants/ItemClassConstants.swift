// The class key and its values (SecItem.h, "Class Key Constant" and "Class Value Constants").

/// The key naming an item's class.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// Generic password items: any bytes under an account and a service.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// Internet password items: a password for a server, protocol, port and path.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Certificate items: an X.509 certificate, its DER encoding as the value, with Apple's derived attributes.
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Cryptographic key items: a `SecKey`, stored by its external representation, found as a `SecKey`.
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Identity items: a certificate paired with its private key, both stored items of their own (an identity is found,
/// never stored itself).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"
