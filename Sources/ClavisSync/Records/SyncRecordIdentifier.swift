public import ClavisCore
internal import ClavisCrypto

/// The name of an item's record on the server: HMAC-SHA256, under the circle's identifier key, of the item's class,
/// access group and primary key. Every device computes the same name for the same item, and the server, without the
/// key, learns nothing from it.
public enum SyncRecordIdentifier {
    /// The identifier of the item of `itemClass` with `attributes` (its primary key and access group are read).
    public static func of(_ itemClass: ItemClass, attributes: [AttributeKey: AttributeValue], keys: SyncKeys)
        -> [UInt8]
    {
        var named = itemClass.primaryKeyAttributes(of: attributes)
        named[.accessGroup] = attributes[.accessGroup] ?? .string("")
        var message = Array("clavis.sync.record-id.v1:\(itemClass.rawValue):".utf8)
        message += AttributeCodec.encode(named)
        return HMACSHA256.authenticationCode(for: message, key: keys.identifierKey)
    }
}
