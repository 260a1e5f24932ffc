import ClavisCore
import ClavisSQLite
import ClavisStore
import Foundation

/// What SQLite alone costs for the writes one add makes and for one read by primary key, on a copy of the bench
/// keychain's file (its pages as they are, same schema, same rows), under the keychain's own settings. An add is one
/// transaction inserting a row of the size a sealed item takes and its lookup entries (a digest of its own where the
/// first item's is its own, the shared one elsewhere); a read is one statement, in a read transaction of its own,
/// selecting a random item's row by its primary-key digest as the engine does, each column read. No crypto, no
/// dictionaries, no API: beside `add`, `read (pk)` and the `Security` rows, they show how much of each call is the
/// keychain's own work.
enum StorageFloor {
    /// `count` such adds, then `count` such reads of items the bench keychain held, on a copy of `bench`'s database in
    /// its folder; the copy is removed afterwards.
    static func measure(_ bench: BenchKeychain, count: Int) throws -> [Measurement] {
        let copy = bench.home.path + "/storage-floor.db"
        let removeCopy = { for suffix in ["", "-wal", "-shm"] { unlink(copy + suffix) } }
        removeCopy()  // A copy a crashed run left, whose log SQLite would otherwise replay.
        defer { removeCopy() }
        try copyDatabase(of: bench, to: copy)
        let keys = try primaryKeys(in: copy, count: count)
        let database = try Connection(path: copy, mode: .readWrite)
        try database.enableWriteAheadLogging()
        try database.executeScript(KeychainDatabaseSettings.writes)
        try database.executeScript(KeychainDatabaseSettings.reads(mapsDatabase: true))
        return [
            try measureAdds(on: database, storeSize: bench.size, count: count),
            try measureReads(keys, on: database, storeSize: bench.size),
        ]
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

    /// `count` adds into `database`, each a transaction inserting a copy of its first row and that row's lookup
    /// entries, timed.
    private static func measureAdds(on database: Connection, storeSize: Int, count: Int) throws -> Measurement {
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

    /// The class and primary-key digest of `count` items drawn at random, with repeats, from the live
    /// non-synchronizable rows of the database at `path`, read through a connection of their own, closed before any
    /// read is timed: the timed connection then finds no page of them touched (mapped or cached) by the draw, as the
    /// engine's reads of random items find theirs.
    private static func primaryKeys(in path: String, count: Int) throws -> [(
        itemClass: DatabaseValue, digest: DatabaseValue
    )] {
        let database = try Connection(path: path, mode: .readWrite)
        let ids = try database.rows("SELECT id FROM items WHERE tombstone = 0 AND sync = 0").compactMap {
            $0.first?.integer
        }
        guard !ids.isEmpty else { throw Workloads.BenchError.status("the floor's copy has no item to read", -1) }
        return try (0..<count).map { _ in
            let row = try database.rows(
                "SELECT class, primary_digest FROM items WHERE id = ?", [.integer(ids.randomElement()!)]
            ).first
            guard let row, row.count == 2 else {
                throw Workloads.BenchError.status("the floor's copy lost an item while drawn", -1)
            }
            return (row[0], row[1])
        }
    }

    /// A read of each of `keys` by primary-key digest, after the adds (as the API's reads follow its adds, with pages
    /// in the log): the statement the engine runs for the bench's reads by whole primary key (one access group, not
    /// synchronizable, no protection class named: its columns, its conditions on the class, tombstones and `sync`, its
    /// order), each column read as the engine reads it.
    private static func measureReads(
        _ keys: [(itemClass: DatabaseValue, digest: DatabaseValue)], on database: Connection, storeSize: Int
    ) throws -> Measurement {
        // ClavisStore's `ItemRow.columns` and the conditions `candidateConditions` writes for this read.
        let select =
            "SELECT id, reference, protection, sync, wrapped_key, attributes, secret, sealing, primary_digest"
            + " FROM items WHERE class = ? AND tombstone = 0 AND sync = 0 AND primary_digest IN (?) ORDER BY id"
        var floor = Measurement(name: "SQLite read (floor)", storeSize: storeSize)
        for key in keys {
            try floor.time {
                var found = false
                try database.forEachRow(select, [key.itemClass, key.digest]) { row in
                    found =
                        row[0].integer != nil && row.blob(1) != nil && row.text(2) != nil
                        && row[3].integer != nil && row.blob(4) != nil && row.readsAsBlob(5) && row.blob(6) != nil
                        && row[7].integer != nil && row.blob(8) != nil
                    return false
                }
                guard found else { throw Workloads.BenchError.status("the floor's read found no readable row", -1) }
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
