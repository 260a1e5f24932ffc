/// The four item operations every transport offers: the embedded store in-process, or the daemon over its socket.
///
/// Entitlements are applied above this layer: callers pass the access groups a query may see.
public protocol KeychainStore: Sendable {
    /// Stores a new item and returns it as stored (with `cdat`, `mdat`, `pdmn`, `agrp`, `sync` and its reference).
    ///
    /// - Throws: `duplicateItem` when an item with the same primary key exists, `interactionNotAllowed` when the
    ///   item's protection class is closed, `param`/`noSuchAttribute`/`dataTooLarge` for bad input.
    func add(_ item: NewItem) throws(KeychainError) -> Item

    /// Returns the matching items in insertion order, at most `query.limit`; an empty array when none match.
    func find(_ query: ItemQuery) throws(KeychainError) -> [Item]

    /// Applies `changes` to every matching item in one transaction and returns how many changed.
    func update(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError) -> Int

    /// Deletes every matching item in one transaction and returns how many were deleted.
    func delete(_ query: ItemQuery) throws(KeychainError) -> Int

    /// The lock state as the caller sees it.
    var lockState: LockState { get }

    /// True while the keychain has a passcode.
    var hasPasscode: Bool { get }

    /// Unlocks with the passcode (`nil` when none is set); `authFailed` for a wrong one.
    func unlock(passcode: SecureBytes?) throws(KeychainError)
}

/// An item to add: its class, its attributes and its secret.
public struct NewItem: Sendable {
    /// The item's class.
    public var itemClass: ItemClass
    /// Its attributes; `pdmn` defaults to `ak`, `sync` to false, `agrp` to "" (callers above set the default group).
    public var attributes: [AttributeKey: AttributeValue]
    /// Its secret (`kSecValueData`); may be empty.
    public var secret: SecureBytes
    /// What the caller proved; only an application password is used when adding (for an access control with
    /// `applicationPassword`).
    public var authentication: AuthenticationProof?

    /// Creates an item to add.
    public init(
        itemClass: ItemClass, attributes: [AttributeKey: AttributeValue], secret: SecureBytes,
        authentication: AuthenticationProof? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
        self.authentication = authentication
    }
}
