internal import ClavisCore
internal import ClavisSQLite

/// The keychain database's schema, as numbered migrations.
enum Schema {
    /// `PRAGMA application_id` of every Clavis keychain: "CLVS".
    static let applicationID: Int64 = 0x434C_5653

    static let migrator = Migrator(migrations: [
        .init(
            version: 1,
            sql: """
                PRAGMA application_id = \(applicationID);
                CREATE TABLE settings (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE keybag (class TEXT PRIMARY KEY, wrapped_key BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE items (
                    id INTEGER PRIMARY KEY,
                    class TEXT NOT NULL,
                    persistent_ref BLOB NOT NULL UNIQUE,
                    protection TEXT NOT NULL,
                    sync INTEGER NOT NULL,
                    tombstone INTEGER NOT NULL DEFAULT 0,
                    primary_digest BLOB NOT NULL,
                    agrp_digest BLOB NOT NULL,
                    acct_digest BLOB,
                    svce_digest BLOB,
                    srvr_digest BLOB,
                    labl_digest BLOB,
                    wrapped_key BLOB NOT NULL,
                    attributes BLOB NOT NULL,
                    secret BLOB NOT NULL
                );
                CREATE UNIQUE INDEX items_primary_key ON items (class, primary_digest) WHERE tombstone = 0;
                CREATE INDEX items_account ON items (acct_digest);
                CREATE INDEX items_service ON items (svce_digest);
                CREATE INDEX items_server ON items (srvr_digest);
                CREATE INDEX items_label ON items (labl_digest);
                CREATE INDEX items_access_group ON items (agrp_digest);
                """),
        // Smaller rows and indexes (issue 11), the table rebuilt so a migrated keychain is as compact as a new one:
        // - lookup digests shortened to 8 bytes (a prefix of the old digest is the new one): a collision only adds a
        //   candidate, which the decrypted attributes rule out. The primary-key digest keeps 16 bytes, since its
        //   unique index must never see two keys collide, and no longer shares its index with `class` (the digest
        //   covers the class);
        // - each lookup digest stored once, in a `WITHOUT ROWID` table of (digest, item) pairs named after the index
        //   it replaces, instead of in a column of the row and again in that column's index; an absent attribute
        //   has no entry;
        // - `reference`: the persistent reference without its class prefix (the row's class), found through an
        //   index on its first 8 random bytes and compared whole in the same statement;
        // - `sealing` names each row's box format (`SealingFormat`): rows written before keep theirs (0), new ones
        //   store no nonces (1). SQLite stores 0 and 1 in no byte.
        .init(
            version: 2,
            sql: """
                CREATE TABLE items_v2 (
                    id INTEGER PRIMARY KEY,
                    class TEXT NOT NULL,
                    reference BLOB NOT NULL,
                    protection TEXT NOT NULL,
                    sync INTEGER NOT NULL,
                    tombstone INTEGER NOT NULL DEFAULT 0,
                    primary_digest BLOB NOT NULL,
                    wrapped_key BLOB NOT NULL,
                    attributes BLOB NOT NULL,
                    secret BLOB NOT NULL,
                    sealing INTEGER NOT NULL
                );
                INSERT INTO items_v2
                    SELECT id, class, substr(persistent_ref, length(CAST(class AS BLOB)) + 1), protection, sync,
                        tombstone, primary_digest, wrapped_key, attributes, secret, 0
                    FROM items ORDER BY id;
                \(lookupTablesFromVersion1())
                DROP TABLE items;
                ALTER TABLE items_v2 RENAME TO items;
                CREATE UNIQUE INDEX items_primary_key ON items (primary_digest) WHERE tombstone = 0;
                CREATE INDEX items_reference ON items (substr(reference, 1, 8));
                """),
        // Keys (issue 12): their public-key hash (`klbl`) and tag (`atag`) get lookup tables like the other indexed
        // attributes. No key item could be stored before this version, so both start empty.
        .init(
            version: 3,
            sql: lookupTables([.applicationLabel, .applicationTag])),
        // Certificates (issue 12): their public-key hash (`pkhh`), which pairs a certificate with its private key's
        // `klbl` into an identity, and their normalized subject (`subj`, what an issuer is looked up by) get lookup
        // tables. No certificate could be stored before, so both start empty.
        .init(
            version: 4,
            sql: lookupTables([.publicKeyHash, .subject])),
        // The Secret Service (issue 13): one entry per `name=value` pair of an item's free-form attributes (`ssat`),
        // so a search by several pairs reaches the items holding all of them without decrypting any other. No item
        // held `ssat` before, so it starts empty.
        .init(
            version: 5,
            sql: lookupTables([.secretServiceAttributes])),
        // Attribute lookup digests shortened to 4 bytes (issue 11), each table rebuilt in key order from the first 4
        // bytes of its 8-byte digests (the new digest), so a migrated keychain is as compact as a new one: a
        // collision only adds a candidate, which the decrypted attributes rule out. Two digests of one item that now
        // collide (Secret Service pairs) become one entry. The access group's digests keep 8 bytes: they delete a
        // removed app's items and confine a locked search without decrypting anything.
        .init(
            version: 6,
            sql: shortenedLookupTables(
                [
                    .account, .service, .server, .label, .applicationLabel, .applicationTag, .publicKeyHash, .subject,
                    .secretServiceAttributes,
                ])),
        // References that name their rows (issue 11): a new row's reference starts with its row id
        // (`PersistentReference.naming(row:)`), so it is found by row id, and `items_reference` keeps only the
        // references that do not name their row: every row written before this version. An add then writes no
        // index entry for its reference: about 1.3 log frames of 7.8 fewer, and 19 bytes per item.
        .init(
            version: 7,
            sql: """
                DROP INDEX items_reference;
                CREATE INDEX items_reference ON items (substr(reference, 1, 8)) WHERE \(referenceNotNamingRow);
                """),
        // Tombstones found by primary key (issue 41): applying another device's change looks up the rows of its key,
        // tombstones included, which `items_primary_key` (live rows only) cannot find; without this index each
        // change applied read every row, and a new device receiving 10,000 items took 20 s. Tombstones only: live
        // rows have their index.
        .init(
            version: 8,
            sql: """
                CREATE INDEX IF NOT EXISTS items_tombstones ON items (primary_digest) WHERE \(tombstoneRow);
                """),
    ])

    /// True for a tombstone's row: the rows `items_tombstones` holds. A lookup names this condition as written here,
    /// which is what lets SQLite use the index.
    static let tombstoneRow = "tombstone <> 0"

    /// True for a row whose reference does not start with its own row id (big-endian): the rows `items_reference`
    /// holds. A lookup by reference names this condition as written here, which is what lets SQLite use the index.
    static let referenceNotNamingRow = "hex(substr(reference, 1, 8)) <> printf('%016X', id)"

    /// The schema versions whose migration rebuilds a table, leaving its old pages free: the opener that ran one
    /// compacts the file.
    static let rebuildingVersions: Set<Int> = [2, 6]

    /// Migration 2's step for each lookup digest: the version-1 column and its index become the attribute's lookup
    /// table, filled with the shortened digests (access group first, then the indexed attributes, in the order the
    /// tables were first created).
    private static func lookupTablesFromVersion1() -> String {
        // Version 1's columns, whatever later versions index.
        ([AttributeKey.accessGroup, .account, .service, .server, .label]).map { key in
            let column = "\(key.rawValue)_digest"
            return """
                DROP INDEX \(key.lookupTable);
                \(lookupTables([key]))
                INSERT INTO \(key.lookupTable)
                    SELECT substr(\(column), 1, 8), id FROM items WHERE \(column) IS NOT NULL;
                """
        }.joined(separator: "\n")
    }

    /// The statements creating each attribute's empty lookup table: its digests paired with the items holding
    /// them, without a row id.
    private static func lookupTables(_ keys: [AttributeKey], suffix: String = "") -> String {
        keys.map { key in
            "CREATE TABLE \(key.lookupTable)\(suffix) (digest BLOB NOT NULL, item INTEGER NOT NULL,"
                + " PRIMARY KEY (digest, item)) WITHOUT ROWID;"
        }.joined(separator: "\n")
    }

    /// Migration 6's step for each attribute's lookup table: rebuilt with its digests cut to their new length.
    private static func shortenedLookupTables(_ keys: [AttributeKey]) -> String {
        keys.map { key in
            let table = key.lookupTable
            return """
                \(lookupTables([key], suffix: "_v6"))
                INSERT OR IGNORE INTO \(table)_v6
                    SELECT substr(digest, 1, \(IndexDigests.byteCount(of: key))), item FROM \(table) ORDER BY 1, 2;
                DROP TABLE \(table);
                ALTER TABLE \(table)_v6 RENAME TO \(table);
                """
        }.joined(separator: "\n")
    }
}
