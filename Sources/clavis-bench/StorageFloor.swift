import ClavisCore
import ClavisSQLite
import ClavisStore
import Foundation

/// What SQLite alone costs for the writes one add makes: into a copy of the bench keychain's file (its pages as they
/// are, same schema, same rows), one transaction per add inserting a row of the size a sealed item takes and its
/// lookup entries (a digest of its own where the first item's is its own, the shared one elsewhere), under the
/// keychain's own settings. No crypto, no dictionaries, no API: the rows above show how much of an add is the
/// keychain's own work.
enum StorageFloor {
    /// `count` such adds on a copy of `bench`'s database in its folder; the copy is removed afterwards.
    static func measure(_ bench: BenchKeychain, count: Int) throws -> Measurement {
        let copy = bench.home.path + "/storage-floor.db"
        let removeCopy = { for suffix in ["", "-wal", "-shm"] { unlink(copy + suffix) } }
        removeCopy()  // A copy a crashed run left, whose log SQLite would otherwise replay.
        defer { removeCopy() }
        try copyDatabase(of: bench, to: copy)
        return try measureAdds(on: copy, storeSize: bench.size, count: count)
    }

    /// Copies the keychain's file byte for byte once its log is folded in (no process has it open now), so the copy's
    /// pages are as full as the keychain's: a compacted copy (`VACUUM INTO`) packs them, and its inserts split more.
    private static func copyDatabase(of bench: BenchKeychain, to copy: String) throws {
        do {
            let source = try Connection(path: bench.home.databasePath, mode: .readWrite)
            _ = try source.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try FileManager.default.copyItem(atPath: bench.home.databasePath, toPath: copy)
    }

    private static func measureAdds(on path: String, storeSize: Int, count: Int) throws -> Measurement {
        let database = try Connection(path: path, mode: .readWrite)
        try database.enableWriteAheadLogging()
        try database.executeScript(KeychainDatabaseSettings.writes)
        try database.executeScript(KeychainDatabaseSettings.reads(mapsDatabase: true))
        guard let template = try database.scalar("SELECT min(id) FROM items")?.integer else {
            throw Workloads.BenchError.status("the bench keychain has no item to copy", -1)
        }
        let insertRow = try rowCopy(in: database)
        let lookups = try lookupEntries(in: database, template: template)
        var floor = Measurement(name: "SQLite add (floor)", storeSize: storeSize)
        for _ in 0..<count {
            try floor.time {
                try database.transaction {
                    // As the keychain does: the id chosen first, and a reference naming it (no index entry).
                    guard let rowID = try database.scalar("SELECT coalesce(max(id), 0) + 1 FROM items")?.integer else {
                        throw Workloads.BenchError.status("the floor's copy has no row id left", -1)
                    }
                    let reference =
                        withUnsafeBytes(of: UInt64(rowID).bigEndian) { Array($0) }
                        + (0..<8).map { _ in UInt8.random(in: 0...255) }
                    try database.execute(insertRow, [.integer(template), .integer(rowID), .blob(reference)])
                    for lookup in lookups {
                        let digest =
                            lookup.isOwn
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

    /// The statement inserting a copy of the row `?1` names as row `?2`, with the reference `?3` and a fresh
    /// primary-key digest of the same length (a random index entry, as an add's is).
    private static func rowCopy(in database: Connection) throws -> String {
        let columns = try database.rows("SELECT name FROM pragma_table_info('items') WHERE name != 'id'")
            .compactMap { $0.first?.text }
        let values = columns.map { column in
            switch column {
            case "reference": "?3"
            case "primary_digest": "randomblob(length(primary_digest))"
            default: column
            }
        }
        return "INSERT INTO items (id, \(columns.joined(separator: ", "))) SELECT ?2, \(values.joined(separator: ", "))"
            + " FROM items WHERE id = ?1"
    }

    /// The lookup entries of the row `template`: each table and digest, and whether a new item files a digest of its
    /// own there (the template alone holds its digest: an account) or shares it (a service, label or group).
    private static func lookupEntries(in database: Connection, template: Int64) throws -> [(
        table: String, digest: [UInt8], isOwn: Bool
    )] {
        let tables = try database.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'items\\_%' ESCAPE '\\'"
        ).compactMap { $0.first?.text }
        return try tables.flatMap { table in
            try database.rows("SELECT digest FROM \(table) WHERE item = ?", [.integer(template)]).compactMap {
                row in
                guard let digest = row.first?.blob else { return nil }
                let holders =
                    try database.scalar("SELECT count(*) FROM \(table) WHERE digest = ?", [.blob(digest)])?.integer
                return (table, digest, holders == 1)
            }
        }
    }
}
