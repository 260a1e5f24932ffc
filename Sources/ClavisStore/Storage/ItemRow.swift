internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite

/// One `items` row as selected for matching: its identity and its still-sealed parts.
struct ItemRow {
    var id: Int64
    var binding: RowBinding
    /// The `wrapped_key` column: the item key's salt (formats 2 and 3) or the wrapped item key (formats 0 and 1).
    var storedKey: [UInt8]
    var sealedSecret: [UInt8]

    /// The columns `init(row:itemClass:)` reads, in order.
    static let columns = "id, reference, protection, sync, wrapped_key, attributes, secret, sealing, primary_digest"

    init(row: Row, itemClass: ItemClass) throws(KeychainError) {
        guard let id = row[0].integer, let reference = row.blob(1),
            let protection = row.text(2).flatMap(ProtectionClass.init(rawValue:)), let sync = row[3].integer,
            let wrappedKey = row.blob(4), row.readsAsBlob(Self.attributesColumn), let secret = row.blob(6),
            let formatNumber = row[7].integer, let primaryDigest = row.blob(8)
        else {
            throw KeychainError(.decode, "an item row of class \(itemClass.rawValue) is malformed")
        }
        guard let format = SealingFormat(rawValue: formatNumber) else {
            throw SealingFormat.refusal(of: formatNumber, itemClass: itemClass)
        }
        self.id = id
        binding = RowBinding(
            itemClass: itemClass, protection: protection,
            persistentReference: PersistentReference(itemClass: itemClass, stored: reference),
            isSynchronizable: sync != 0, format: format, primaryDigest: primaryDigest)
        storedKey = wrappedKey
        sealedSecret = secret
    }

    /// The column of the sealed attributes, which are copied out only when opened (`sealedAttributes(of:)`): a read
    /// by primary key returning data needs none.
    private static let attributesColumn = 5

    /// The sealed attributes of `row`, which `init(row:itemClass:)` accepted.
    static func sealedAttributes(of row: Row) -> [UInt8] { row.blob(attributesColumn) ?? [] }
}

/// The lookup digests of a row, computed from its attributes: its access group, each indexed attribute it has
/// (absent primary-key attributes as "" or 0) and each of its Secret Service attributes, each filed in that
/// attribute's lookup table.
struct RowDigests {
    var lookups: [(key: AttributeKey, digest: [UInt8])]

    init(itemClass: ItemClass, attributes: [AttributeKey: AttributeValue], digests: IndexDigests) {
        lookups = [(.accessGroup, digests.digest(of: .accessGroup, attributes[.accessGroup] ?? .string("")))]
        let kinds = itemClass.attributeKinds
        let primary = itemClass.primaryKey  // a handful of keys: a scan costs less than hashing them into a set
        for key in AttributeSchema.indexed where kinds[key] != nil {
            if let value = attributes[key] {
                lookups.append((key, digests.digest(of: key, value)))
            } else if primary.contains(key) {
                lookups.append((key, digests.digest(of: key, attributes.primaryKeyValue(key, kinds: kinds))))
            }
        }
        if let secretServiceAttributes = SecretServiceAttributes(of: attributes) {
            // Each distinct digest once: two pairs of the item whose digests collide share one entry.
            var seen: Set<[UInt8]> = []
            for (name, value) in secretServiceAttributes.pairs {
                let digest = digests.digest(ofSecretServicePair: name, value)
                if seen.insert(digest).inserted { lookups.append((.secretServiceAttributes, digest)) }
            }
        }
    }
}

extension AttributeKey {
    /// The `WITHOUT ROWID` table of (digest, item) pairs that indexes this attribute (`AttributeSchema`).
    var lookupTable: String {
        guard let table = AttributeSchema.definition(of: self)?.lookup?.table else {
            preconditionFailure("attribute \(rawValue) has no lookup table")
        }
        return table
    }
}

extension PersistentReference {
    /// A reference as a row of class `itemClass` stores it: the bytes after the class code (the row's class).
    init(itemClass: ItemClass, stored: [UInt8]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(itemClass.rawValue.utf8.count + stored.count)
        bytes.append(contentsOf: itemClass.rawValue.utf8)
        bytes.append(contentsOf: stored)
        self.init(bytes: bytes)
    }

    /// What a row of class `itemClass` stores of this reference (`reference` column); `nil` when the reference does
    /// not start with that class's code, so no such row holds it.
    func stored(for itemClass: ItemClass) -> [UInt8]? {
        let prefix = itemClass.rawValue.utf8
        guard bytes.starts(with: prefix) else { return nil }
        return Array(bytes.dropFirst(prefix.count))
    }

    /// A fresh reference for a new row of class `itemClass`: its class code and 16 random bytes, the first 8 of which
    /// `naming(row:)` replaces once the row is chosen.
    static func drawn(for itemClass: ItemClass) -> PersistentReference {
        PersistentReference(itemClass: itemClass, stored: SecureRandom.bytes(count: byteCount - classCodeByteCount))
    }

    /// This reference, drawn for a new row (`drawn(for:)`), made to name row `rowID`: its first 8 random bytes
    /// replaced by the row id, big-endian. It is then found by row id and needs no entry in `items_reference`; the 8
    /// random bytes left tell it apart from the reference of a deleted item whose row id a new row took.
    func naming(row rowID: Int64) -> PersistentReference {
        precondition(bytes.count == Self.byteCount, "a drawn reference has the class code and 16 random bytes")
        var named = ByteWriter(capacity: Self.byteCount)
        named.raw(bytes.prefix(Self.classCodeByteCount))
        named.int64(rowID)
        named.raw(bytes.dropFirst(Self.classCodeByteCount + 8))
        return PersistentReference(bytes: named.bytes)
    }

    /// The row a stored reference would name (`naming(row:)`): its first 8 bytes as a row id, big-endian, whatever
    /// they hold, as `Schema.referenceNotNamingRow` reads them; `nil` for a reference of another length. A reference
    /// that does not name its row is found through `items_reference`.
    static func namedRow(_ stored: [UInt8]) -> Int64? {
        guard stored.count == byteCount - classCodeByteCount else { return nil }
        var reader = ByteReader(stored, subject: "a persistent reference")
        return try? reader.int64()
    }

    /// The `items_reference` index's key for a stored reference: its first 8 bytes.
    static func indexKey(_ stored: [UInt8]) -> [UInt8] { Array(stored.prefix(8)) }
}
