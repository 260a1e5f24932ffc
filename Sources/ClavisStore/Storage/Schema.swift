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
        // Smaller rows and indexes (issue 11): lookup digests shortened to 8 bytes (a collision only adds a
        // candidate, which the decrypted attributes rule out; the primary-key digest keeps 16, since its unique
        // index must never see two keys collide), `class` left out of the primary-key index (the digest already
        // covers the class), and no index entries for absent attributes (an equality on a digest implies it is
        // not null, so SQLite still uses these partial indexes). A prefix of the old digest is the new digest.
        // `sealing` names each row's box format (`SealingFormat`): rows already written keep theirs (0), new ones
        // drop the stored nonces (1, which SQLite stores in no byte).
        .init(
            version: 2,
            sql: """
                DROP INDEX items_primary_key;
                DROP INDEX items_account;
                DROP INDEX items_service;
                DROP INDEX items_server;
                DROP INDEX items_label;
                DROP INDEX items_access_group;
                UPDATE items SET
                    agrp_digest = substr(agrp_digest, 1, \(lookupDigestByteCount)),
                    acct_digest = substr(acct_digest, 1, \(lookupDigestByteCount)),
                    svce_digest = substr(svce_digest, 1, \(lookupDigestByteCount)),
                    srvr_digest = substr(srvr_digest, 1, \(lookupDigestByteCount)),
                    labl_digest = substr(labl_digest, 1, \(lookupDigestByteCount));
                CREATE UNIQUE INDEX items_primary_key ON items (primary_digest) WHERE tombstone = 0;
                CREATE INDEX items_account ON items (acct_digest) WHERE acct_digest IS NOT NULL;
                CREATE INDEX items_service ON items (svce_digest) WHERE svce_digest IS NOT NULL;
                CREATE INDEX items_server ON items (srvr_digest) WHERE srvr_digest IS NOT NULL;
                CREATE INDEX items_label ON items (labl_digest) WHERE labl_digest IS NOT NULL;
                CREATE INDEX items_access_group ON items (agrp_digest);
                ALTER TABLE items ADD COLUMN sealing INTEGER NOT NULL DEFAULT 0;
                """),
    ])

    private static let lookupDigestByteCount = IndexDigests.lookupByteCount
}
