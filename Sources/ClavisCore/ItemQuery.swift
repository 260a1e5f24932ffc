/// What to look for: a class, exact attribute values, which synchronizable items, which groups and how many.
public struct ItemQuery: Sendable {
    /// The class searched.
    public var itemClass: ItemClass
    /// Attributes that must match exactly (case-sensitive); `sync` and `agrp` go in their own fields.
    public var attributes: [AttributeKey: AttributeValue]
    /// Secret Service attributes every match must hold (`SecretServiceAttributes.contains`); empty for none.
    public var secretServiceAttributes: [String: String]
    /// Which items to see by their `sync` attribute.
    public var synchronizable: SynchronizableFilter
    /// The access groups searched; `nil` searches every group (the caller's entitlements are applied above the store).
    public var accessGroups: [String]?
    /// A single item by its persistent reference.
    public var persistentReference: PersistentReference?
    /// How many items to return at most.
    public var limit: MatchLimit
    /// Whether to decrypt and return each item's secret.
    public var returnsSecret: Bool
    /// Whether the caller reads the items' attributes. When false (a caller that takes only secrets and persistent
    /// references), an item may come back with only the attributes the query named, its access group, `sync` and
    /// protection: a read by whole primary key then opens the item's secret alone.
    public var returnsAttributes: Bool
    /// What the caller proved, for items with an access control (needed to read their secret, update or delete).
    public var authentication: AuthenticationProof?
    /// What to do with items whose access control needs an authentication `authentication` does not give.
    public var unauthenticatedItems: UnauthenticatedItemPolicy

    /// Creates a query; by default it matches non-synchronizable items in any group, all of them, with their attributes
    /// and without secrets.
    public init(
        itemClass: ItemClass, attributes: [AttributeKey: AttributeValue] = [:],
        secretServiceAttributes: [String: String] = [:], synchronizable: SynchronizableFilter = .no,
        accessGroups: [String]? = nil,
        persistentReference: PersistentReference? = nil, limit: MatchLimit = .all, returnsSecret: Bool = false,
        returnsAttributes: Bool = true, authentication: AuthenticationProof? = nil,
        unauthenticatedItems: UnauthenticatedItemPolicy = .fail
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secretServiceAttributes = secretServiceAttributes
        self.synchronizable = synchronizable
        self.accessGroups = accessGroups
        self.persistentReference = persistentReference
        self.limit = limit
        self.returnsSecret = returnsSecret
        self.returnsAttributes = returnsAttributes
        self.authentication = authentication
        self.unauthenticatedItems = unauthenticatedItems
    }
}

/// Which items a query sees by their `sync` attribute (`kSecAttrSynchronizable`, `kSecAttrSynchronizableAny`).
public enum SynchronizableFilter: Sendable, Hashable {
    /// Only items that do not sync: the default when a query names none.
    case no
    /// Only synchronizable items.
    case yes
    /// Both.
    case any

    /// True when an item with `isSynchronizable` passes the filter.
    public func admits(_ isSynchronizable: Bool) -> Bool {
        switch self {
        case .no: !isSynchronizable
        case .yes: isSynchronizable
        case .any: true
        }
    }
}

/// How many matches a query returns (`kSecMatchLimit`).
public enum MatchLimit: Sendable, Hashable {
    /// At most one (`kSecMatchLimitOne`).
    case one
    /// Every match (`kSecMatchLimitAll`).
    case all
    /// At most this many.
    case count(Int)

    /// The limit as a number, `nil` for all.
    public var maximum: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let count): count
        }
    }
}

/// What an update changes: attributes to set and, optionally, a new secret.
public struct ItemChanges: Sendable {
    /// Attributes to set; `cdat`, `mdat` and the class cannot be changed.
    public var attributes: [AttributeKey: AttributeValue]
    /// A new secret, or `nil` to keep the current one.
    public var secret: SecureBytes?

    /// Creates a change set.
    public init(attributes: [AttributeKey: AttributeValue] = [:], secret: SecureBytes? = nil) {
        self.attributes = attributes
        self.secret = secret
    }
}
