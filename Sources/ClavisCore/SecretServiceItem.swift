/// A freedesktop Secret Service item as the keychain holds it: a generic password whose service (`svce`) is the
/// collection's name (`login` for the `default` alias), whose account (`acct`) is the item's id (the last element of
/// its object path), with the item's label (`labl`), its free-form attributes (`ssat`), its secret and the secret's
/// content type (`gena`). `cdat` and `mdat` are its `Created` and `Modified`.
public struct SecretServiceItem: Sendable {
    /// The access group Secret Service clients share unless a registered app opts out: `secret-tool lookup` finds
    /// what another program stored, as with every other Linux provider.
    public static let sharedAccessGroup = "org.freedesktop.secrets"

    /// The collection's name, the last element of its object path.
    public var collection: String
    /// The item's id within the collection.
    public var id: String
    /// `org.freedesktop.Secret.Item.Label`.
    public var label: String
    /// `org.freedesktop.Secret.Item.Attributes`.
    public var attributes: [String: String]
    /// The secret's bytes.
    public var secret: SecureBytes
    /// The secret's content type, `text/plain` unless the client named another.
    public var contentType: String

    /// An item with these parts.
    public init(
        collection: String, id: String, label: String, attributes: [String: String], secret: SecureBytes,
        contentType: String
    ) {
        self.collection = collection
        self.id = id
        self.label = label
        self.attributes = attributes
        self.secret = secret
        self.contentType = contentType
    }

    /// The keychain item to add for it, in `accessGroup`.
    public func newItem(accessGroup: String) -> NewItem {
        NewItem(
            itemClass: .genericPassword,
            attributes: [
                .service: .string(collection), .account: .string(id), .label: .string(label),
                .secretServiceAttributes: .data(SecretServiceAttributes(attributes).encoded),
                .generic: .string(contentType), .accessGroup: .string(accessGroup),
            ], secret: secret)
    }

    /// The query that finds the items of `collection` holding every one of `attributes` (all the collection's items
    /// when `attributes` is empty); `collection` nil searches every collection.
    public static func query(collection: String?, attributes: [String: String]) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword,
            attributes: collection.map { [.service: .string($0)] } ?? [:],
            secretServiceAttributes: attributes)
    }
}
