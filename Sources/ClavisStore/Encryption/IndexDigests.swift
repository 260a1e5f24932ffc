internal import ClavisCore
internal import ClavisCrypto

/// Keyed digests that stand in the database for attribute values, so lookups use an index without storing any
/// account, service or label in clear.
///
/// Each digest is HMAC-SHA256 under an index key derived from the device key, over a domain tag and the value's
/// canonical encoding, truncated: to 16 bytes for the primary key, whose unique index must never see two items' keys
/// collide; to 4 bytes for an attribute's lookup (account, service, label, a Secret Service pair, ...), where a
/// collision only adds a candidate that the check against the decrypted attributes drops (one in about four billion
/// items per value looked up); and to 8 bytes for the access group, whose digest also decides without decrypting:
/// a removed app's items are deleted by it (`deleteAccessGroups`) and a locked search is confined by it to the
/// caller's groups (`lockedReferences`), so two groups' digests must not collide. HMAC's keyed state is kept, so a
/// digest costs one short hash. Each digest copies that state and changes nothing kept, so the readers beside an
/// engine (`ReaderPool`) share one instance.
final class IndexDigests {
    private let key: HMACSHA256Key
    /// The length of the primary-key digest.
    static let primaryKeyByteCount = 16
    /// The length of an attribute lookup's digest (`items_account`, `items_service`, ...).
    static let lookupByteCount = 4
    /// The length of an access group's digest (`items_access_group`).
    static let accessGroupByteCount = 8

    /// The length of `key`'s lookup digests.
    static func byteCount(of key: AttributeKey) -> Int {
        key == .accessGroup ? accessGroupByteCount : lookupByteCount
    }

    init(deviceKey: SecureBytes) throws(KeychainError) {
        do {
            key = HMACSHA256Key(
                try HKDFSHA256.deriveKey(
                    from: deviceKey, salt: [], info: Array("clavis.index-key.v1".utf8), outputByteCount: 32))
        } catch {
            throw KeychainError(.io, "cannot derive the index key: \(error)")
        }
    }

    /// The digest of one attribute's value.
    func digest(of key: AttributeKey, _ value: AttributeValue) -> [UInt8] {
        var message = ByteWriter(capacity: 64)
        message.raw("attr:".utf8)
        message.raw(key.rawValue.utf8)
        message.byte(UInt8(ascii: ":"))
        AttributeCodec.append(value, to: &message)
        return mac(message.bytes, byteCount: Self.byteCount(of: key))
    }

    /// The digest of one Secret Service attribute, `name=value`: one of the item's entries in
    /// `items_secret_service_attribute`.
    func digest(ofSecretServicePair name: String, _ value: String) -> [UInt8] {
        digest(
            of: .secretServiceAttributes, .data(SecretServiceAttributes.pairForm(name: name, value: value)))
    }

    /// The digest of an item's primary key: each primary-key attribute in order, absent ones as "" or 0.
    func primaryKeyDigest(of itemClass: ItemClass, _ attributes: [AttributeKey: AttributeValue]) -> [UInt8] {
        primaryKeyDigest(
            of: itemClass, attributes, accessGroup: attributes.primaryKeyValue(.accessGroup, kinds: [:]),
            synchronizable: attributes.primaryKeyValue(.synchronizable, kinds: [:]))
    }

    /// The digest of the primary key `attributes` name together with `accessGroup` and `synchronizable` (a query's
    /// candidate key in one searched group), without copying the attributes.
    func primaryKeyDigest(
        of itemClass: ItemClass, _ attributes: [AttributeKey: AttributeValue], accessGroup: AttributeValue,
        synchronizable: AttributeValue
    ) -> [UInt8] {
        var message = ByteWriter(capacity: 128)
        message.raw("primary:".utf8)
        message.raw(itemClass.rawValue.utf8)
        message.byte(UInt8(ascii: ":"))
        let kinds = itemClass.attributeKinds
        for key in itemClass.primaryKey {
            let value =
                switch key {
                case .accessGroup: accessGroup
                case .synchronizable: synchronizable
                default: attributes.primaryKeyValue(key, kinds: kinds)
                }
            AttributeCodec.append(value, to: &message)
        }
        return mac(message.bytes, byteCount: Self.primaryKeyByteCount)
    }

    private func mac(_ message: [UInt8], byteCount: Int) -> [UInt8] {
        key.authenticationCode(for: message, truncatedTo: byteCount)
    }
}

extension Dictionary where Key == AttributeKey, Value == AttributeValue {
    /// The value a primary-key attribute counts as: the stored one, else "" or 0 of its kind.
    func primaryKeyValue(_ key: AttributeKey, kinds: [AttributeKey: AttributeValue.Kind]) -> AttributeValue {
        if key == .synchronizable { return .bool(self[key]?.boolValue ?? false) }
        if let value = self[key] { return value }
        return .absent(kinds[key] ?? .string)
    }
}
