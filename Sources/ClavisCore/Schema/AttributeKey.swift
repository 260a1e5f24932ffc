/// An item attribute, named by Apple's short code (`acct`, `svce`, ...), which is also the value of its `kSecAttr*`
/// constant.
///
/// A key compares and hashes by its code packed in an integer (`PackedName`) when the code is short ASCII, as every
/// code but `clavis.tokenHolder` is: attribute dictionaries are read on every keychain call.
public struct AttributeKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Apple's short code for the attribute.
    public let rawValue: String
    /// `rawValue` packed, or 0 when it is not short ASCII.
    private let packed: UInt64

    /// Wraps a short code; whether a class accepts it is decided by the schema (`AttributeSchema`).
    public init(rawValue: String) {
        self.rawValue = rawValue
        packed = PackedName(rawValue)?.bits ?? 0
    }

    /// The short code.
    public var description: String { rawValue }

    /// Keys are equal when their codes are. A packed code is never equal to one that is not, even where the two are
    /// equal as `String`s (`K` and the Kelvin sign: `PackedName`); no code Apple or Clavis defines is such a pair.
    public static func == (lhs: AttributeKey, rhs: AttributeKey) -> Bool {
        lhs.packed == rhs.packed && (lhs.packed != 0 || lhs.rawValue == rhs.rawValue)
    }

    /// Hashes the packed code, or the code itself when it is not packed.
    public func hash(into hasher: inout Hasher) {
        if packed != 0 { hasher.combine(packed) } else { hasher.combine(rawValue) }
    }

    /// Orders keys by code, so encodings and digests are deterministic: as `String`s order (packed codes order as
    /// their bytes, which for ASCII is the `String` order), a packed code first where the two are equal as `String`s.
    public static func < (lhs: AttributeKey, rhs: AttributeKey) -> Bool {
        if lhs.packed != 0 && rhs.packed != 0 { return lhs.packed < rhs.packed }
        if lhs.rawValue != rhs.rawValue { return lhs.rawValue < rhs.rawValue }
        return lhs.packed != 0 && rhs.packed == 0
    }

    // Shared by every class.
    /// `kSecAttrAccessible`: the protection class code.
    public static let accessible = AttributeKey(rawValue: "pdmn")
    /// `kSecAttrAccessGroup`.
    public static let accessGroup = AttributeKey(rawValue: "agrp")
    /// `kSecAttrSynchronizable`.
    public static let synchronizable = AttributeKey(rawValue: "sync")
    /// `kSecAttrCreationDate`, set by the store.
    public static let creationDate = AttributeKey(rawValue: "cdat")
    /// `kSecAttrModificationDate`, set by the store.
    public static let modificationDate = AttributeKey(rawValue: "mdat")
    /// `kSecAttrLabel`.
    public static let label = AttributeKey(rawValue: "labl")
    /// `kSecAttrAccessControl`: the encoded access-control policy.
    public static let accessControl = AttributeKey(rawValue: "accc")

    // Password classes.
    /// `kSecAttrAccount`.
    public static let account = AttributeKey(rawValue: "acct")
    /// `kSecAttrService`.
    public static let service = AttributeKey(rawValue: "svce")
    /// `kSecAttrGeneric`.
    public static let generic = AttributeKey(rawValue: "gena")
    /// A Secret Service item's free-form attributes (`SecretServiceAttributes.encoded`), Clavis's own: each pair is
    /// searchable through a lookup digest of its own.
    public static let secretServiceAttributes = AttributeKey(rawValue: "ssat")
    /// `kSecAttrDescription`.
    public static let itemDescription = AttributeKey(rawValue: "desc")
    /// `kSecAttrComment`.
    public static let comment = AttributeKey(rawValue: "icmt")
    /// `kSecAttrCreator`: a four-character code as a number.
    public static let creator = AttributeKey(rawValue: "crtr")
    /// `kSecAttrType`: a four-character code as a number.
    public static let type = AttributeKey(rawValue: "type")
    /// `kSecAttrIsInvisible`.
    public static let isInvisible = AttributeKey(rawValue: "invi")
    /// `kSecAttrIsNegative`.
    public static let isNegative = AttributeKey(rawValue: "nega")
    /// `kSecAttrAlias`.
    public static let alias = AttributeKey(rawValue: "alis")
    /// `kSecAttrScriptCode`.
    public static let scriptCode = AttributeKey(rawValue: "scrp")
    /// `kSecAttrHasCustomIcon`.
    public static let customIcon = AttributeKey(rawValue: "cusi")
    /// `kSecAttrProtected`.
    public static let isProtected = AttributeKey(rawValue: "prot")
    /// `kSecAttrSecurityDomain`.
    public static let securityDomain = AttributeKey(rawValue: "sdmn")
    /// `kSecAttrServer`.
    public static let server = AttributeKey(rawValue: "srvr")
    /// `kSecAttrProtocol`: a four-character protocol code such as `htps`.
    public static let `protocol` = AttributeKey(rawValue: "ptcl")
    /// `kSecAttrAuthenticationType`: a four-character code such as `dflt`.
    public static let authenticationType = AttributeKey(rawValue: "atyp")
    /// `kSecAttrPort`.
    public static let port = AttributeKey(rawValue: "port")
    /// `kSecAttrPath`.
    public static let path = AttributeKey(rawValue: "path")

    // Keys and certificates.
    /// `kSecAttrKeyClass`.
    public static let keyClass = AttributeKey(rawValue: "kcls")
    /// `kSecAttrApplicationLabel`.
    public static let applicationLabel = AttributeKey(rawValue: "klbl")
    /// `kSecAttrApplicationTag`.
    public static let applicationTag = AttributeKey(rawValue: "atag")
    /// `kSecAttrKeyType`.
    public static let keyType = AttributeKey(rawValue: "type")
    /// `kSecAttrKeySizeInBits`.
    public static let keySizeInBits = AttributeKey(rawValue: "bsiz")
    /// `kSecAttrEffectiveKeySize`.
    public static let effectiveKeySize = AttributeKey(rawValue: "esiz")
    /// `kSecAttrTokenID`: the token holding a private key the keychain service never hands out
    /// (`TokenKey.secureEnclave`).
    public static let tokenID = AttributeKey(rawValue: "tkid")
    /// Clavis's own, with no Apple equivalent: for a key a token holds, what holds its private part
    /// (`TokenKey.Holder`: a TPM, or the keychain service in software). Set by the service, never by a caller.
    public static let tokenHolder = AttributeKey(rawValue: "clavis.tokenHolder")
    /// Key validity start.
    public static let startDate = AttributeKey(rawValue: "sdat")
    /// Key validity end.
    public static let endDate = AttributeKey(rawValue: "edat")
    /// `kSecAttrIsPermanent`.
    public static let isPermanent = AttributeKey(rawValue: "perm")
    /// `kSecAttrIsPrivate`.
    public static let isPrivate = AttributeKey(rawValue: "priv")
    /// `kSecAttrIsModifiable`.
    public static let isModifiable = AttributeKey(rawValue: "modi")
    /// `kSecAttrIsSensitive`.
    public static let isSensitive = AttributeKey(rawValue: "sens")
    /// `kSecAttrWasAlwaysSensitive`.
    public static let wasAlwaysSensitive = AttributeKey(rawValue: "asen")
    /// `kSecAttrIsExtractable`.
    public static let isExtractable = AttributeKey(rawValue: "extr")
    /// `kSecAttrWasNeverExtractable`.
    public static let wasNeverExtractable = AttributeKey(rawValue: "next")
    /// `kSecAttrCanEncrypt`.
    public static let canEncrypt = AttributeKey(rawValue: "encr")
    /// `kSecAttrCanDecrypt`.
    public static let canDecrypt = AttributeKey(rawValue: "decr")
    /// `kSecAttrCanDerive`.
    public static let canDerive = AttributeKey(rawValue: "drve")
    /// `kSecAttrCanSign`.
    public static let canSign = AttributeKey(rawValue: "sign")
    /// `kSecAttrCanVerify`.
    public static let canVerify = AttributeKey(rawValue: "vrfy")
    /// `kSecAttrCanSignRecover`.
    public static let canSignRecover = AttributeKey(rawValue: "snrc")
    /// `kSecAttrCanVerifyRecover`.
    public static let canVerifyRecover = AttributeKey(rawValue: "vyrc")
    /// `kSecAttrCanWrap`.
    public static let canWrap = AttributeKey(rawValue: "wrap")
    /// `kSecAttrCanUnwrap`.
    public static let canUnwrap = AttributeKey(rawValue: "unwp")
    /// `kSecAttrCertificateType`.
    public static let certificateType = AttributeKey(rawValue: "ctyp")
    /// `kSecAttrIssuer`.
    public static let issuer = AttributeKey(rawValue: "issr")
    /// `kSecAttrSerialNumber`.
    public static let serialNumber = AttributeKey(rawValue: "slnr")
    /// `kSecAttrCertificateEncoding`.
    public static let certificateEncoding = AttributeKey(rawValue: "cenc")
    /// `kSecAttrSubject`: the normalized subject name.
    public static let subject = AttributeKey(rawValue: "subj")
    /// `kSecAttrSubjectKeyID`.
    public static let subjectKeyID = AttributeKey(rawValue: "skid")
    /// `kSecAttrPublicKeyHash`: SHA-1 of the certificate's public key, a private key's `klbl` when they pair.
    public static let publicKeyHash = AttributeKey(rawValue: "pkhh")
}
