// PKCS#12 import options and the keys of each item SecPKCS12Import returns (SecImportExport.h).

/// The passphrase (a string) that opens a PKCS#12 archive.
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
/// An imported item's friendly name (a string).
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
/// An imported item's local key ID (data).
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
/// A `SecTrust` for the imported identity's certificate chain.
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
/// The imported identity's certificate chain (an array of `SecCertificate`, the leaf first).
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
/// The imported `SecIdentity`.
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"
