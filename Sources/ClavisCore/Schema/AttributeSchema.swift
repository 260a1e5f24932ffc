/// Every item attribute Clavis knows, one row each: the one table a new attribute is added to.
///
/// What reads it: which classes accept an attribute and of what kind (`ItemClass.attributeKinds`), each class's
/// primary key (`ItemClass.primaryKey`), the store's lookup indexes (`indexed`) and compact sealed codes, `Security`'s
/// `kSecAttr*` constants, and how `clavis` reads and prints a value. Apple's `SecItemSchema.c` is the precedent.
///
/// The order of the rows is the order each class hashes its primary key in, so the primary-key attributes come
/// first, in that order; stored primary-key digests depend on it (`AttributeSchemaTests` holds each class's key).
/// Apple's schema keeps account, service, label, description, comment, generic, alias, server, security domain and
/// path as blobs: a string, data or a number, each coming back as the type it was given (`.blob`).
public enum AttributeSchema {
    /// The rows.
    public static let rows: [AttributeDefinition] = [
        // Primary-key attributes, in each class's hashing order.
        .init(
            .account, .blob, in: .passwords, primaryKeyOf: .passwords,
            lookup: .init("items_account", selectivityRank: 0), compactCode: 1),
        .init(
            .service, .blob, in: .genericPassword, primaryKeyOf: .genericPassword,
            lookup: .init("items_service", selectivityRank: 7), compactCode: 2),
        .init(.securityDomain, .blob, in: .internetPassword, primaryKeyOf: .internetPassword, compactCode: 21),
        .init(
            .server, .blob, in: .internetPassword, primaryKeyOf: .internetPassword,
            lookup: .init("items_server", selectivityRank: 1), compactCode: 22),
        .init(.protocol, .string, in: .internetPassword, primaryKeyOf: .internetPassword, compactCode: 23),
        .init(.authenticationType, .string, in: .internetPassword, primaryKeyOf: .internetPassword, compactCode: 24),
        .init(.port, .number, in: .internetPassword, primaryKeyOf: .internetPassword, compactCode: 25),
        .init(.path, .blob, in: .internetPassword, primaryKeyOf: .internetPassword, compactCode: 26),
        // The key class: 0 public, 1 private, 2 symmetric.
        .init(.keyClass, .number, in: .key, primaryKeyOf: .key, compactCode: 27),
        .init(
            .applicationLabel, .blob, in: .key, primaryKeyOf: .key,
            lookup: .init("items_application_label", selectivityRank: 2), compactCode: 28),
        .init(
            .applicationTag, .blob, in: .key, primaryKeyOf: .key,
            lookup: .init("items_application_tag", selectivityRank: 4), compactCode: 29),
        // A password's type (a four-character code) and a key's (Apple's numeric codes: 42 RSA, 73 EC) share `type`.
        .init(
            .type, .number, in: [.passwords, .key], primaryKeyOf: .key, compactCode: 14, isFourCharacterCode: true),
        .init(.keySizeInBits, .number, in: .key, primaryKeyOf: .key, compactCode: 30),
        .init(.effectiveKeySize, .number, in: .key, primaryKeyOf: .key, compactCode: 31),
        .init(.startDate, .date, in: .key, primaryKeyOf: .key, compactCode: 32),
        .init(.endDate, .date, in: .key, primaryKeyOf: .key, compactCode: 33),
        .init(
            .creator, .number, in: [.passwords, .key], primaryKeyOf: .key, compactCode: 13,
            isFourCharacterCode: true),
        .init(.certificateType, .number, in: .certificate, primaryKeyOf: .certificate, compactCode: 34),
        .init(.issuer, .data, in: .certificate, primaryKeyOf: .certificate, compactCode: 35),
        .init(.serialNumber, .data, in: .certificate, primaryKeyOf: .certificate, compactCode: 36),
        .init(
            .accessGroup, .string, in: .every, primaryKeyOf: .stored, lookup: .init("items_access_group"),
            compactCode: 4),
        .init(.synchronizable, .bool, in: .every, primaryKeyOf: .stored, compactCode: 5),

        // Every class.
        .init(.accessible, .string, in: .every, compactCode: 6),
        .init(.creationDate, .date, in: .every, compactCode: 7),
        .init(.modificationDate, .date, in: .every, compactCode: 8),
        .init(
            .label, .blob, in: .every, lookup: .init("items_label", selectivityRank: 6), compactCode: 3),
        .init(.accessControl, .data, in: .every, compactCode: 9),

        // Passwords.
        .init(.generic, .blob, in: .genericPassword, compactCode: 10),
        .init(.secretServiceAttributes, .data, in: .genericPassword, lookup: .init("items_secret_service_attribute")),
        .init(.itemDescription, .blob, in: .passwords, compactCode: 11),
        .init(.comment, .blob, in: .passwords, compactCode: 12),
        .init(.isInvisible, .bool, in: .passwords, compactCode: 15),
        .init(.isNegative, .bool, in: .passwords, compactCode: 16),
        .init(.alias, .blob, in: [.passwords, .certificate], compactCode: 17),
        .init(.scriptCode, .number, in: .passwords, compactCode: 18),
        .init(.customIcon, .bool, in: .passwords, compactCode: 19),
        .init(.isProtected, .bool, in: .passwords, compactCode: 20),

        // Keys: the token holding a private key, and the usage and property flags.
        .init(.tokenID, .blob, in: .key),
        .init(.tokenHolder, .string, in: .key),
        .init(.isPermanent, .bool, in: .key),
        .init(.isPrivate, .bool, in: .key),
        .init(.isModifiable, .bool, in: .key),
        .init(.isSensitive, .bool, in: .key),
        .init(.wasAlwaysSensitive, .bool, in: .key),
        .init(.isExtractable, .bool, in: .key),
        .init(.wasNeverExtractable, .bool, in: .key),
        .init(.canEncrypt, .bool, in: .key),
        .init(.canDecrypt, .bool, in: .key),
        .init(.canDerive, .bool, in: .key),
        .init(.canSign, .bool, in: .key),
        .init(.canVerify, .bool, in: .key),
        .init(.canSignRecover, .bool, in: .key),
        .init(.canVerifyRecover, .bool, in: .key),
        .init(.canWrap, .bool, in: .key),
        .init(.canUnwrap, .bool, in: .key),

        // Certificates.
        .init(.certificateEncoding, .number, in: .certificate, compactCode: 37),
        .init(
            .subject, .data, in: .certificate, lookup: .init("items_subject", selectivityRank: 5), compactCode: 38),
        .init(.subjectKeyID, .data, in: .certificate, compactCode: 39),
        .init(
            .publicKeyHash, .data, in: .certificate, lookup: .init("items_public_key_hash", selectivityRank: 3),
            compactCode: 40),
    ]

    /// The row of `key`, if the schema has one.
    public static func definition(of key: AttributeKey) -> AttributeDefinition? { byKey[key] }

    /// The attributes a lookup may start from, most distinguishing first: the indexed attributes whose keyed
    /// digests let a query find items without decrypting any.
    public static let indexed: [AttributeKey] = rows.compactMap { row in
        row.lookup?.selectivityRank.map { (row.key, $0) }
    }.sorted { $0.1 < $1.1 }.map(\.0)

    /// Every attribute with a lookup table: the access group, the Secret Service pairs and the indexed attributes.
    public static let withLookupTables: [AttributeKey] = rows.filter { $0.lookup != nil }.map(\.key)

    /// The attributes `itemClass` carries, with the kind each takes.
    static func kinds(of itemClass: ItemClass) -> [AttributeKey: AttributeValue.Kind] {
        let member = ItemClassSet(itemClass)
        return Dictionary(
            uniqueKeysWithValues: rows.filter { $0.classes.contains(member) }.map { ($0.key, $0.kind) })
    }

    /// The primary key of `itemClass`, in hashing order.
    static func primaryKey(of itemClass: ItemClass) -> [AttributeKey] {
        let member = ItemClassSet(itemClass)
        return rows.filter { $0.primaryKeyOf.contains(member) }.map(\.key)
    }

    private static let byKey = Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0) })
}
