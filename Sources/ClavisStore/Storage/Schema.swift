import ClavisSQLite

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
        // - no index entries for absent attributes (an equality on a digest implies it is not null, so SQLite still
        //   uses these partial indexes);
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
                    agrp_digest BLOB NOT NULL,
                    acct_digest BLOB,
                    svce_digest BLOB,
                    srvr_digest BLOB,
                    labl_digest BLOB,
                    wrapped_key BLOB NOT NULL,
                    attributes BLOB NOT NULL,
                    secret BLOB NOT NULL,
                    sealing INTEGER NOT NULL
                );
                INSERT INTO items_v2
                    SELECT id, class, substr(persistent_ref, length(CAST(class AS BLOB)) + 1), protection, sync,
                        tombstone, primary_digest, \(shortened("agrp_digest")), \(shortened("acct_digest")),
                        \(shortened("svce_digest")), \(shortened("srvr_digest")), \(shortened("labl_digest")),
                        wrapped_key, attributes, secret, 0
                    FROM items ORDER BY id;
                DROP TABLE items;
                ALTER TABLE items_v2 RENAME TO items;
                CREATE UNIQUE INDEX items_primary_key ON items (primary_digest) WHERE tombstone = 0;
                CREATE INDEX items_reference ON items (substr(reference, 1, 8));
                CREATE INDEX items_account ON items (acct_digest) WHERE acct_digest IS NOT NULL;
                CREATE INDEX items_service ON items (svce_digest) WHERE svce_digest IS NOT NULL;
                CREATE INDEX items_server ON items (srvr_digest) WHERE srvr_digest IS NOT NULL;
                CREATE INDEX items_label ON items (labl_digest) WHERE labl_digest IS NOT NULL;
                CREATE INDEX items_access_group ON items (agrp_digest);
                """),
    ])

    /// A version-1 lookup digest column cut to its version-2 length.
    private static func shortened(_ column: String) -> String {
        "substr(\(column), 1, \(IndexDigests.lookupByteCount))"
    }
}
