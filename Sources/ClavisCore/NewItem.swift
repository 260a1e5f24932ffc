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
