/// Brings a database's schema to the newest version, one numbered step at a time, all in one transaction.
public struct Migrator: Sendable {
    /// One schema step: the version it produces and the SQL that gets there from the version before.
    public struct Migration: Sendable {
        /// The schema version after this step.
        public let version: Int
        /// The statements that perform the step.
        public let sql: String

        /// Creates a step.
        public init(version: Int, sql: String) {
            self.version = version
            self.sql = sql
        }
    }

    /// The steps, in increasing version order.
    public let migrations: [Migration]

    /// Creates a migrator over `migrations`, which must be numbered 1, 2, 3, ...
    public init(migrations: [Migration]) {
        precondition(
            migrations.map(\.version) == Array(1...migrations.count), "migrations must be numbered from 1 without gaps")
        self.migrations = migrations
    }

    /// The newest version the steps reach.
    public var latestVersion: Int { migrations.count }

    /// The version the database is at: 0 before its first step.
    public func version(of connection: Connection) throws -> Int {
        try connection.transaction(immediate: false) {
            let tables = try connection.scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
            guard tables?.integer ?? 0 > 0 else { return 0 }
            return try connection.scalar("SELECT MAX(version) FROM schema_version")?.integer.map(Int.init) ?? 0
        }
    }

    /// Applies every step the database has not had yet and returns its version afterwards.
    ///
    /// The version lives in `schema_version`; a database newer than these steps is left alone and reported.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> Int {
        try connection.transaction {
            try connection.executeScript("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            let current = try connection.scalar("SELECT MAX(version) FROM schema_version")?.integer.map(Int.init) ?? 0
            guard current < latestVersion else { return current }
            for migration in migrations where migration.version > current {
                try connection.executeScript(migration.sql)
                try connection.execute(
                    "INSERT INTO schema_version (version) VALUES (?)", [.integer(Int64(migration.version))])
            }
            return latestVersion
        }
    }
}
