/// One row of the attribute schema (`AttributeSchema.rows`): what Clavis knows of one attribute, as a `SECDB_ATTR`
/// row says it for Apple's keychain server. The store, `Security`'s constants, the wire format and `clavis` read it
/// from here.
public struct AttributeDefinition: Sendable {
    /// The attribute's code (`acct`), which is also the value of its `kSecAttr*` constant.
    public let key: AttributeKey
    /// The kind of value it takes.
    public let kind: AttributeValue.Kind
    /// The classes whose items carry it.
    public let classes: ItemClassSet
    /// The classes whose primary key it is part of. A class hashes its primary key in the order of the schema's rows.
    public let primaryKeyOf: ItemClassSet
    /// How the store finds items by the attribute without decrypting them, when it does.
    public let lookup: Lookup?
    /// The one-byte code sealed items name the attribute by (`StoredAttributes`), or `nil` to spell it out. Sealed
    /// items hold these: a code is never changed or given to another attribute.
    public let compactCode: UInt8?
    /// True when the value is a four-character code held as a number (`kSecAttrCreator`, `kSecAttrType`), which
    /// `clavis` reads and prints as its four characters.
    public let isFourCharacterCode: Bool

    /// A row; every part but the code, kind and classes is optional.
    public init(
        _ key: AttributeKey, _ kind: AttributeValue.Kind, in classes: ItemClassSet,
        primaryKeyOf: ItemClassSet = [], lookup: Lookup? = nil, compactCode: UInt8? = nil,
        isFourCharacterCode: Bool = false
    ) {
        self.key = key
        self.kind = kind
        self.classes = classes
        self.primaryKeyOf = primaryKeyOf
        self.lookup = lookup
        self.compactCode = compactCode
        self.isFourCharacterCode = isFourCharacterCode
    }

    /// The store's index of an attribute: a table of keyed digests of its values, each beside the item holding it.
    public struct Lookup: Sendable {
        /// The `WITHOUT ROWID` table of (digest, item) pairs.
        public let table: String
        /// The attribute's place among those a lookup may start from, most distinguishing first (an account names
        /// one item or few, a service a whole app's); `nil` for the access group and the Secret Service pairs, which
        /// the query planner weighs on their own.
        public let selectivityRank: Int?

        /// An index in `table`, ranked `selectivityRank`.
        public init(_ table: String, selectivityRank: Int? = nil) {
            self.table = table
            self.selectivityRank = selectivityRank
        }
    }
}

/// A set of item classes, as a schema row names those carrying an attribute.
public struct ItemClassSet: OptionSet, Sendable, Hashable {
    /// The set's bits, one per `ItemClass`.
    public let rawValue: UInt8
    /// Wraps the bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The set holding `itemClass` alone.
    public init(_ itemClass: ItemClass) {
        switch itemClass {
        case .genericPassword: self = .genericPassword
        case .internetPassword: self = .internetPassword
        case .key: self = .key
        case .certificate: self = .certificate
        case .identity: self = .identity
        }
    }

    /// `kSecClassGenericPassword`.
    public static let genericPassword = ItemClassSet(rawValue: 1 << 0)
    /// `kSecClassInternetPassword`.
    public static let internetPassword = ItemClassSet(rawValue: 1 << 1)
    /// `kSecClassKey`.
    public static let key = ItemClassSet(rawValue: 1 << 2)
    /// `kSecClassCertificate`.
    public static let certificate = ItemClassSet(rawValue: 1 << 3)
    /// `kSecClassIdentity`, which carries the attributes every class shares.
    public static let identity = ItemClassSet(rawValue: 1 << 4)

    /// The two password classes.
    public static let passwords: ItemClassSet = [.genericPassword, .internetPassword]
    /// The classes stored as rows of their own (`ItemClass.isStorable`).
    public static let stored: ItemClassSet = [.genericPassword, .internetPassword, .key, .certificate]
    /// Every class.
    public static let every: ItemClassSet = [.stored, .identity]
}
