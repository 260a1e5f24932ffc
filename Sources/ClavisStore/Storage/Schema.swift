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
                """)
    ])
}
