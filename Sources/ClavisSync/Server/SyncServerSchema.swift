public import ClavisCore

/// The sync server's schema in PostgreSQL (schema `clavis_sync`), installed and migrated by `clavis sync
/// server-init`: each account's opaque records, its circle of devices, its wrapped keys and join requests, one
/// change sequence, a notification per change, and row-level security that keeps accounts apart.
///
/// An account is a PostgreSQL login role, member of `clavis_sync_account` (`SyncServerAccounts`); every row carries
/// the role that wrote it, and the policies let a role see and change only its own rows, so a client can only ever
/// reach its own account's ciphertext, whatever it sends. The server holds nothing in clear: a record is a keyed
/// identifier, a version, the writing device, a ciphertext and its signature.
public enum SyncServerSchema {
    /// The version this build installs and understands.
    public static var currentVersion: Int { migrations.count }

    /// What `install` did: the version found and the version left.
    public struct Installation: Sendable, Equatable {
        /// The version the database had (0: none).
        public var from: Int
        /// The version it has now.
        public var to: Int

        /// An installation from one version to another.
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// Brings the database `database` is connected to up to `currentVersion`, in one transaction under an advisory
    /// lock (two installers at once run one after the other). Run by a role that may create schemas and roles.
    ///
    /// - Throws: `invalidKeychain` for a database a newer Clavis migrated (nothing is changed), what the statements
    ///   throw (nothing is changed either).
    public static func install(on database: SyncDatabase) throws(KeychainError) -> Installation {
        try database.transaction { () throws(KeychainError) -> Installation in
            try database.execute("SELECT pg_advisory_xact_lock(\(advisoryLock))")
            try database.executeScript(
                """
                CREATE SCHEMA IF NOT EXISTS clavis_sync;
                CREATE TABLE IF NOT EXISTS clavis_sync.schema_version (
                    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                    version integer NOT NULL
                );
                """)
            let found = try database.execute("SELECT version FROM clavis_sync.schema_version").first?[0].integer ?? 0
            guard found >= 0 else {
                throw KeychainError(
                    .invalidKeychain, "the sync database has schema version \(found), which no Clavis wrote")
            }
            guard found <= currentVersion else {
                throw KeychainError(
                    .invalidKeychain,
                    "the sync database has schema version \(found), newer than this build's \(currentVersion): "
                        + "initialize it with the newer Clavis that migrated it")
            }
            for version in Int(found)..<currentVersion { try database.executeScript(migrations[version]) }
            try database.execute(
                """
                INSERT INTO clavis_sync.schema_version (version) VALUES ($1)
                ON CONFLICT (only_row) DO UPDATE SET version = excluded.version
                """, [.integer(Int64(currentVersion))])
            return Installation(from: Int(found), to: currentVersion)
        }
    }

    /// The advisory lock key installers take: "clavis" in ASCII.
    private static let advisoryLock: Int64 = 0x636c_6176_6973

    /// Each migration's script, version 1 first: migration `n` takes the schema from version `n` to `n + 1`.
    static let migrations = [SyncServerMigrations.accountsRecordsAndCircles]
}
