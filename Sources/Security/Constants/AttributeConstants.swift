// Attribute keys (SecItem.h, "Attribute Item Keys"); the values are Apple's short codes, as stored. An item
// attribute's value is its code in the schema (`AttributeSchema`); the others are keys of queries and key requests.

import ClavisCore

/// When the item can be read: one of the `kSecAttrAccessible*` values.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = AttributeKey.accessible.constant
/// macOS's legacy access object (not used by the data-protection keychain).
nonisolated(unsafe) public let kSecAttrAccess: CFString = "acls"
/// The item's `SecAccessControl`.
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = AttributeKey.accessControl.constant
/// The access group the item belongs to.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = AttributeKey.accessGroup.constant
/// Whether the item syncs between a user's devices (a boolean, or `kSecAttrSynchronizableAny` in queries).
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = AttributeKey.synchronizable.constant
/// In queries, matches both synchronizable and non-synchronizable items.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
/// The item's creation date, set by the keychain.
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = AttributeKey.creationDate.constant
/// The item's last modification date, set by the keychain.
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = AttributeKey.modificationDate.constant
/// A user-visible description of the item's kind.
nonisolated(unsafe) public let kSecAttrDescription: CFString = AttributeKey.itemDescription.constant
/// A user-editable comment.
nonisolated(unsafe) public let kSecAttrComment: CFString = AttributeKey.comment.constant
/// The item's creator, a four-character code as a number.
nonisolated(unsafe) public let kSecAttrCreator: CFString = AttributeKey.creator.constant
/// The item's type, a four-character code as a number.
nonisolated(unsafe) public let kSecAttrType: CFString = AttributeKey.type.constant
/// A user-visible label.
nonisolated(unsafe) public let kSecAttrLabel: CFString = AttributeKey.label.constant
/// Whether the item is hidden from user interfaces.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = AttributeKey.isInvisible.constant
/// Whether the item records that no valid password exists.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = AttributeKey.isNegative.constant
/// The account name.
nonisolated(unsafe) public let kSecAttrAccount: CFString = AttributeKey.account.constant
/// The service name (generic passwords).
nonisolated(unsafe) public let kSecAttrService: CFString = AttributeKey.service.constant
/// Caller-defined data (generic passwords).
nonisolated(unsafe) public let kSecAttrGeneric: CFString = AttributeKey.generic.constant
/// The security domain (internet passwords).
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = AttributeKey.securityDomain.constant
/// The server's domain name or address (internet passwords).
nonisolated(unsafe) public let kSecAttrServer: CFString = AttributeKey.server.constant
/// The protocol: one of the `kSecAttrProtocol*` values (internet passwords).
nonisolated(unsafe) public let kSecAttrProtocol: CFString = AttributeKey.`protocol`.constant
/// The authentication scheme: one of the `kSecAttrAuthenticationType*` values (internet passwords).
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = AttributeKey.authenticationType.constant
/// The port number (internet passwords).
nonisolated(unsafe) public let kSecAttrPort: CFString = AttributeKey.port.constant
/// The path (internet passwords).
nonisolated(unsafe) public let kSecAttrPath: CFString = AttributeKey.path.constant
/// The certificate's subject name.
nonisolated(unsafe) public let kSecAttrSubject: CFString = AttributeKey.subject.constant
/// The certificate's issuer name.
nonisolated(unsafe) public let kSecAttrIssuer: CFString = AttributeKey.issuer.constant
/// The certificate's serial number.
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = AttributeKey.serialNumber.constant
/// The certificate's subject key identifier.
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = AttributeKey.subjectKeyID.constant
/// The hash of the certificate's public key.
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = AttributeKey.publicKeyHash.constant
/// The certificate's type.
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = AttributeKey.certificateType.constant
/// The certificate's encoding.
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = AttributeKey.certificateEncoding.constant
/// The key's class: one of the `kSecAttrKeyClass*` values.
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = AttributeKey.keyClass.constant
/// The key's application label (for a public or private key, the public key's hash).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = AttributeKey.applicationLabel.constant
/// Whether a generated key is stored in the keychain.
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = AttributeKey.isPermanent.constant
/// Whether the key may be exported only wrapped.
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = AttributeKey.isSensitive.constant
/// Whether the key may be exported.
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = AttributeKey.isExtractable.constant
/// The key's private tag.
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = AttributeKey.applicationTag.constant
/// The key's algorithm: one of the `kSecAttrKeyType*` values.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = AttributeKey.keyType.constant
/// The pseudorandom function of a derived key.
nonisolated(unsafe) public let kSecAttrPRF: CFString = "prf"
/// The salt of a derived key.
nonisolated(unsafe) public let kSecAttrSalt: CFString = "salt"
/// The rounds of a derived key.
nonisolated(unsafe) public let kSecAttrRounds: CFString = "rounds"
/// The key's size in bits.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = AttributeKey.keySizeInBits.constant
/// The key's effective size in bits.
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = AttributeKey.effectiveKeySize.constant
/// Whether the key can encrypt.
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = AttributeKey.canEncrypt.constant
/// Whether the key can decrypt.
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = AttributeKey.canDecrypt.constant
/// Whether the key can derive other keys.
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = AttributeKey.canDerive.constant
/// Whether the key can sign.
nonisolated(unsafe) public let kSecAttrCanSign: CFString = AttributeKey.canSign.constant
/// Whether the key can verify signatures.
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = AttributeKey.canVerify.constant
/// Whether the key can wrap other keys.
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = AttributeKey.canWrap.constant
/// Whether the key can unwrap other keys.
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = AttributeKey.canUnwrap.constant
/// A hint naming the sync view of the item.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// The token holding the key, such as `kSecAttrTokenIDSecureEnclave`.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = AttributeKey.tokenID.constant
/// The Secure Enclave token (on Linux, the device key's holder).
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// Clavis's own key attribute, with no Apple equivalent: for a `kSecAttrTokenIDSecureEnclave` key, what holds its
/// private part, `kClavisTokenHolderTPM` or `kClavisTokenHolderSoftware`. `SecKeyCopyAttributes` and
/// `SecItemCopyMatching` report it; a caller cannot set it.
nonisolated(unsafe) public let kClavisAttrTokenHolder: CFString = AttributeKey.tokenHolder.constant
/// `kClavisAttrTokenHolder`'s value for a key made in the keychain's TPM 2.0, whose private part never leaves it.
nonisolated(unsafe) public let kClavisTokenHolderTPM: CFString = "tpm"
/// `kClavisAttrTokenHolder`'s value for a key the keychain service made and keeps in software (no TPM).
nonisolated(unsafe) public let kClavisTokenHolderSoftware: CFString = "software"
