import ClavisCore
import ClavisSQLite
import ClavisStore

/// Looks at a keychain's database file directly, as an attacker or an operator with the file would.
struct StoreInspector {
    let connection: Connection

    init(_ home: KeychainHome) throws {
        connection = try Connection(path: home.databasePath, mode: .readWrite)
    }

    func tombstoneCount() throws -> Int64 {
        try connection.scalar("SELECT count(*) FROM items WHERE tombstone = 1")?.integer ?? -1
    }

    func integrityCheck() throws -> String {
        try connection.scalar("PRAGMA integrity_check")?.text ?? ""
    }

    /// The row ids of live items, in insertion order.
    func itemIDs() throws -> [Int64] {
        try connection.rows("SELECT id FROM items WHERE tombstone = 0 ORDER BY id").compactMap { $0[0].integer }
    }

    func blob(_ column: String, id: Int64) throws -> [UInt8] {
        try connection.scalar("SELECT \(column) FROM items WHERE id = ?", [.integer(id)])?.blob ?? []
    }

    func setBlob(_ column: String, id: Int64, _ bytes: [UInt8]) throws {
        try set(column, id: id, .blob(bytes))
    }

    func set(_ column: String, id: Int64, _ value: DatabaseValue) throws {
        try connection.execute("UPDATE items SET \(column) = ? WHERE id = ?", [value, .integer(id)])
    }

    /// The detail lines of SQLite's plan for `sql`.
    func queryPlan(_ sql: String, _ values: [DatabaseValue]) throws -> [String] {
        try connection.rows("EXPLAIN QUERY PLAN " + sql, values).compactMap { $0.last?.text }
    }
}
