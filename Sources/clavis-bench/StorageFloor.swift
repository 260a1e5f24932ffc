import ClavisCore
import ClavisSQLite
import ClavisStore
import Foundation

/// What SQLite alone costs for the writes one add makes: into a copy of the bench keychain (same schema, same number
/// of rows), one transaction per add inserting a row of the size a sealed item takes and its lookup entries (a
/// fresh account digest, the shared service, label and group digests), under the keychain's own durability settings.
/// No crypto, no dictionaries, no API: the rows above show how much of an add is the keychain's own work.
enum StorageFloor {
    /// `count` such adds on a copy of `bench`'s database in its folder; the copy is removed afterwards.
    static func measure(_ bench: BenchKeychain, count: Int) throws -> Measurement {
        let copy = bench.home.path + "/storage-floor.db"
        defer {
            for suffix in ["", "-wal", "-shm"] { unlink(copy + suffix) }
        }
        unlink(copy)
        let source = try Connection(path: bench.home.databasePath, mode: .readWrite)
        try source.execute("VACUUM INTO ?", [.text(copy)])
        let database = try Connection(path: copy, mode: .readWrite)
        try database.enableWriteAheadLogging()
        try database.executeScript(KeychainDurability.settings)
        guard let template = try database.scalar("SELECT min(id) FROM items")?.integer else {
            throw Workloads.BenchError.status("the bench keychain has no item to copy", -1)
        }
        let insertRow = try rowCopy(in: database)
        let lookups = try lookupEntries(in: database, template: template)
        var floor = Measurement(name: "SQLite add (floor)", storeSize: bench.size)
        for _ in 0..<count {
            try floor.time {
                try database.transaction {
                    try database.execute(insertRow, [.integer(template)])
                    let rowID = database.lastInsertedRowID
                    for lookup in lookups {
                        let digest =
                            lookup.isFresh
                            ? (0..<lookup.digest.count).map { _ in UInt8.random(in: 0...255) } : lookup.digest
                        try database.execute(
                            "INSERT INTO \(lookup.table) (digest, item) VALUES (?, ?)",
                            [.blob(digest), .integer(rowID)])
                    }
                }
            }
        }
        return floor
    }

    /// The statement inserting a copy of the row `?1` names, with a fresh persistent reference and primary-key
    /// digest of the same lengths (two random index entries, as an add's are).
    private static func rowCopy(in database: Connection) throws -> String {
        let columns = try database.rows("SELECT name FROM pragma_table_info('items') WHERE name != 'id'")
            .compactMap { $0.first?.text }
        let values = columns.map { column in
            ["reference", "primary_digest"].contains(column) ? "randomblob(length(\(column)))" : column
        }
        return "INSERT INTO items (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", "))"
            + " FROM items WHERE id = ?1"
    }

    /// The lookup entries of the row `template`: each table and digest, and whether a new item gets a digest of its
    /// own there (the account's: every item has its own) or shares it (the service's, label's and group's).
    private static func lookupEntries(in database: Connection, template: Int64) throws -> [(
        table: String, digest: [UInt8], isFresh: Bool
    )] {
        let tables = try database.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'items\\_%' ESCAPE '\\'"
        ).compactMap { $0.first?.text }
        return try tables.flatMap { table in
            try database.rows("SELECT digest FROM \(table) WHERE item = ?", [.integer(template)]).compactMap { row in
                row.first?.blob.map { (table, $0, table == "items_account") }
            }
        }
    }
}
