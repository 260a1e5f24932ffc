// Attribute keys (SecItem.h, "Attribute Item Keys"); the values are Apple's short codes, as stored.

/// When the item can be read: one of the `kSecAttrAccessible*` values.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// macOS's legacy access object (not used by the data-protection keychain).
nonisolated(unsafe) public let kSecAttrAccess: CFString = "acls"
/// The item's `SecAccessControl`.
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// The access group the item belongs to.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item syncs between a user's devices (a boolean, or `kSecAttrSynchronizableAny` in queries).
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// In queries, matches both synchronizable and non-synchronizable items.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
/// The item's creation date, set by the keychain.
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// The item's last modification date, set by the keychain.
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// A user-visible description of the item's kind.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// A user-editable comment.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// The item's creator, a four-character code as a number.
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// The item's type, a four-character code as a number.
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// A user-visible label.
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from user interfaces.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item records that no valid password exists.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// The account name.
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// The service name (generic passwords).
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// Caller-defined data (generic passwords).
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// The security domain (internet passwords).
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// The server's domain name or address (internet passwords).
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// The protocol: one of the `kSecAttrProtocol*` values (internet passwords).
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// The authentication scheme: one of the `kSecAttrAuthenticationType*` values (internet passwords).
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// The port number (internet passwords).
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// The path (internet passwords).
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// The certificate's subject name.
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// The certificate's issuer name.
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// The certificate's serial number.
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// The certificate's subject key identifier.
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// The hash of the certificate's public key.
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
/// The certificate's type.
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// The certificate's encoding.
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// The key's class: one of the `kSecAttrKeyClass*` values.
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// The key's application label (for a public or private key, the public key's hash).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// Whether a generated key is stored in the keychain.
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// Whether the key may be exported only wrapped.
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// Whether the key may be exported.
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// The key's private tag.
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// The key's algorithm: one of the `kSecAttrKeyType*` values.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// The pseudorandom function of a derived key.
nonisolated(unsafe) public let kSecAttrPRF: CFString = "prf"
/// The salt of a derived key.
nonisolated(unsafe) public let kSecAttrSalt: CFString = "salt"
/// The rounds of a derived key.
nonisolated(unsafe) public let kSecAttrRounds: CFString = "rounds"
/// The key's size in bits.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// The key's effective size in bits.
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// Whether the key can encrypt.
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// Whether the key can decrypt.
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// Whether the key can derive other keys.
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// Whether the key can sign.
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// Whether the key can verify signatures.
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// Whether the key can wrap other keys.
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// Whether the key can unwrap other keys.
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// A hint naming the sync view of the item.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// The token holding the key, such as `kSecAttrTokenIDSecureEnclave`.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
/// The Secure Enclave token (on Linux, the device key's holder).
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// Clavis's own key attribute, with no Apple equivalent: for a `kSecAttrTokenIDSecureEnclave` key, what holds its
/// private part, `kClavisTokenHolderTPM` or `kClavisTokenHolderSoftware`. `SecKeyCopyAttributes` and
/// `SecItemCopyMatching` report it; a caller cannot set it.
nonisolated(unsafe) public let kClavisAttrTokenHolder: CFString = "clavis.tokenHolder"
/// `kClavisAttrTokenHolder`'s value for a key made in the keychain's TPM 2.0, whose private part never leaves it.
nonisolated(unsafe) public let kClavisTokenHolderTPM: CFString = "tpm"
/// `kClavisAttrTokenHolder`'s value for a key the keychain service made and keeps in software (no TPM).
nonisolated(unsafe) public let kClavisTokenHolderSoftware: CFString = "software"
