// The class key and its values (SecItem.h, "Class Key Constant" and "Class Value Constants").

/// The key naming an item's class.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// Generic password items: any bytes under an account and a service.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// Internet password items: a password for a server, protocol, port and path.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Certificate items (not stored yet: adding one is `errSecUnimplemented`; searches find none).
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Cryptographic key items (not stored yet: adding one is `errSecUnimplemented`; searches find none).
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Identity items: a certificate with its private key (not stored yet: adding one is `errSecUnimplemented`).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"
