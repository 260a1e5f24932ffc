public import ClavisCore

/// What a record carries: an item as it syncs (its class, every attribute, its access group among them, and its
/// secret), or the tombstone of a deleted one, with the time of the change that decides conflicts.
public struct SyncedItem: Sendable {
    /// The item's class.
    public var itemClass: ItemClass
    /// Every attribute, `agrp` and `pdmn` among them.
    public var attributes: [AttributeKey: AttributeValue]
    /// The secret; `nil` for a tombstone.
    public var secret: SecureBytes?
    /// When the change was made, in milliseconds since 1970: the newest wins.
    public var modified: Int64

    /// True for the record of a deleted item.
    public var isTombstone: Bool { secret == nil }

    /// An item or tombstone.
    public init(
        itemClass: ItemClass, attributes: [AttributeKey: AttributeValue], secret: SecureBytes?, modified: Int64
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
        self.modified = modified
    }

    /// The item's protection class.
    public var protection: ProtectionClass {
        attributes[.accessible]?.stringValue.flatMap(ProtectionClass.init(rawValue:)) ?? .default
    }

    /// The item's access group.
    public var accessGroup: String { attributes[.accessGroup]?.stringValue ?? "" }

    /// The plaintext a record seals: class, modification time, attributes, and the secret when there is one.
    var encoded: SecureBytes {
        var writer = ByteWriter()
        writer.string(itemClass.rawValue)
        writer.int64(modified)
        writer.lengthPrefixed(AttributeCodec.encode(attributes))
        writer.optional(secret) { $0.secret($1) }
        defer { writer.wipe() }
        return SecureBytes(writer.bytes)
    }

    /// The item `encoded` gave.
    init(encoded: SecureBytes) throws(KeychainError) {
        self = try encoded.withTemporaryArray(Self.decoded)
    }

    /// The item in `bytes`.
    private static func decoded(_ bytes: [UInt8]) throws(KeychainError) -> SyncedItem {
        var reader = ByteReader(bytes, subject: "a synced item")
        guard let itemClass = ItemClass(rawValue: try reader.string()), itemClass.isStorable else {
            throw reader.malformed("an unknown item class")
        }
        let modified = try reader.int64()
        let attributes = try AttributeCodec.decode(Array(try reader.lengthPrefixed()))
        let secret = try reader.optional { (reader) throws(KeychainError) in try reader.secret() }
        guard reader.isAtEnd else { throw reader.malformed("bytes after the item") }
        return SyncedItem(itemClass: itemClass, attributes: attributes, secret: secret, modified: modified)
    }
}
