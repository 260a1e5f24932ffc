/// A freedesktop Secret Service item as the keychain holds it: a generic password whose service (`svce`) is the
/// collection's name (`login` for the `default` alias), with the item's label (`labl`), its free-form attributes
/// (`ssat`), its secret and the secret's content type (`gena`); `cdat` and `mdat` are its `Created` and `Modified`.
///
/// The item's id, the last element of its object path, is its persistent reference in hexadecimal (`id(of:)`): the
/// store keeps the reference unsealed, so the id is known while the keychain is locked, when a search names the
/// locked items it matches. The account (`acct`) is a random value that only keeps the item's primary key unique.
public struct SecretServiceItem: Sendable {
    /// The access group Secret Service clients share unless a registered app opts out: `secret-tool lookup` finds
    /// what another program stored, as with every other Linux provider.
    public static let sharedAccessGroup = "org.freedesktop.secrets"

    /// The collection's name, the last element of its object path.
    public var collection: String
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
        collection: String, label: String, attributes: [String: String], secret: SecureBytes, contentType: String
    ) {
        self.collection = collection
        self.label = label
        self.attributes = attributes
        self.secret = secret
        self.contentType = contentType
    }

    /// The keychain item to add for it, in `accessGroup`, under a random account.
    public func newItem(accessGroup: String) -> NewItem {
        var random = SystemRandomNumberGenerator()
        let account = (0..<16).map { _ in String(UInt8.random(in: 0..<16, using: &random), radix: 16) }.joined()
        return NewItem(
            itemClass: .genericPassword,
            attributes: [
                .service: .string(collection), .account: .string(account), .label: .string(label),
                .secretServiceAttributes: .data(SecretServiceAttributes(attributes).encoded),
                .generic: .string(contentType), .accessGroup: .string(accessGroup),
            ], secret: secret)
    }

    /// The service (`svce`) of the marker items that stand for the collections other than `login`.
    public static let collectionMarkerService = "org.freedesktop.Secret.Collection"
    /// The collection (and alias) whose items clavisd keeps in memory only, as gnome-keyring does.
    public static let sessionCollection = "session"

    /// The marker that stands for the collection `name` labelled `label`, in `accessGroup` (the caller's default group
    /// when `nil`): a generic password whose account is the name, `AfterFirstUnlock` so that the collection is listed
    /// while the keychain is locked.
    public static func collectionMarker(name: String, label: String, accessGroup: String?) -> NewItem {
        var attributes: [AttributeKey: AttributeValue] = [
            .service: .string(collectionMarkerService), .account: .string(name), .label: .string(label),
            .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue),
        ]
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        return NewItem(itemClass: .genericPassword, attributes: attributes, secret: SecureBytes([]))
    }

    /// The query that finds the marker of the collection `name`.
    public static func collectionMarkerQuery(name: String) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword,
            attributes: [.service: .string(collectionMarkerService), .account: .string(name)])
    }

    /// The query that finds the items of `collection` holding every one of `attributes` (all the collection's items
    /// when `attributes` is empty); `collection` nil searches every collection.
    public static func query(collection: String?, attributes: [String: String]) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword,
            attributes: collection.map { [.service: .string($0)] } ?? [:],
            secretServiceAttributes: attributes)
    }

    /// The id of the item `reference` names: the lowercase hexadecimal of the reference's bytes after its class
    /// code, a valid D-Bus path element.
    public static func id(of reference: PersistentReference) -> String {
        // The reference's description is its bytes in lowercase hexadecimal, two digits each.
        String(reference.description.dropFirst(2 * classCode.count))
    }

    /// The reference an item id names; `nil` for an id that is not a generic password's reference in lowercase
    /// hexadecimal.
    public static func reference(forID id: String) -> PersistentReference? {
        let digits = Array(id.utf8)
        guard digits.count == 2 * (PersistentReference.byteCount - classCode.count) else { return nil }
        var bytes = classCode
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return PersistentReference(bytes: bytes)
    }

    /// The class code every Secret Service item's reference starts with.
    private static let classCode = Array(ItemClass.genericPassword.rawValue.utf8)

    /// The value of a lowercase hexadecimal digit.
    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
