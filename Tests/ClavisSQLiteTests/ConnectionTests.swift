import ClavisSQLite
import Foundation
import Testing

@Suite final class ConnectionTests {
    let path = NSTemporaryDirectory() + "clavis-sqlite-\(UUID().uuidString).db"

    /// Each test's database and its journal files go with the test.
    deinit {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func valuesRoundTripIncludingEmptyBlobs() throws {
        let connection = try Connection(path: path)
        try connection.executeScript("CREATE TABLE t (i INTEGER, s TEXT, b BLOB, n BLOB)")
        try connection.execute(
            "INSERT INTO t VALUES (?, ?, ?, ?)", [.integer(-42), .text("héllo"), .blob([]), .null])
        let row = try #require(try connection.rows("SELECT i, s, b, typeof(b), n FROM t").first)
        #expect(row[0] == .integer(-42))
        #expect(row[1] == .text("héllo"))
        #expect(row[2].blob == [])
        #expect(row[3] == .text("blob"), "an empty blob binds as a blob, not NULL")
        #expect(row[4] == .null)
    }

    /// A database whose one row `t` holds a value of every storage class: an integer `i`, text `s`, a blob `b`, an
    /// empty blob `e`, NULL `n`, a fractional real `r` and a whole one `w`.
    private func connectionWithEveryStorageClass() throws -> Connection {
        let connection = try Connection(path: path)
        try connection.executeScript("CREATE TABLE t (i INTEGER, s TEXT, b BLOB, e BLOB, n BLOB, r REAL, w REAL)")
        try connection.execute(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?, 1.5, 2.0)",
            [.integer(-42), .text("héllo"), .blob([1, 2, 3]), .blob([]), .null])
        return connection
    }

    @Test func textRoundTripsWithItsLengthWhateverItHolds() throws {
        let connection = try Connection(path: path)
        try connection.executeScript("CREATE TABLE t (s TEXT)")
        let texts = ["", "a", "héllo", "nul\u{0}inside", String(repeating: "long ", count: 40)]
        for text in texts { try connection.execute("INSERT INTO t VALUES (?)", [.text(text)]) }
        let rows = try connection.rows("SELECT s, typeof(s), length(CAST(s AS BLOB)) FROM t ORDER BY rowid")
        #expect(rows.map { $0[0] } == texts.map(DatabaseValue.text), "a zero byte inside a text is read back too")
        #expect(rows.map { $0[1] } == texts.map { _ in .text("text") }, "an empty string binds as text, not NULL")
        #expect(rows.map { $0[2] } == texts.map { .integer(Int64($0.utf8.count)) })
    }

    @Test func typedBlobAndTextReadAsTheirDatabaseValuesDo() throws {
        let connection = try connectionWithEveryStorageClass()
        var pairs: [(blob: [UInt8]?, valueBlob: [UInt8]?, text: String?, valueText: String?, readsAsBlob: Bool)] = []
        try connection.forEachRow("SELECT i, s, b, e, n, r, w FROM t") { row in
            pairs = (0..<7).map { (row.blob($0), row[$0].blob, row.text($0), row[$0].text, row.readsAsBlob($0)) }
            return false
        }
        #expect(pairs.count == 7)
        for (column, pair) in pairs.enumerated() {
            #expect(pair.blob == pair.valueBlob, "column \(column)")
            #expect(pair.readsAsBlob == (pair.blob != nil), "column \(column)")
            #expect(pair.text == pair.valueText, "column \(column)")
        }
        #expect(pairs.map(\.blob) == [nil, nil, [1, 2, 3], [], [], [], nil])
        #expect(pairs[1].text == "héllo")
    }

    @Test func columnsAreReadInPlaceWithTheirStorageClass() throws {
        let connection = try connectionWithEveryStorageClass()
        var seen: [(Row.StorageClass, Int64, [UInt8])] = []
        try connection.forEachRow("SELECT i, s, b, e, n, r FROM t") { row in
            seen = (0..<6).map { (row.storageClass($0), row.integer($0), row.withUnsafeBytes($0) { Array($0) }) }
            return false
        }
        #expect(seen.map(\.0) == [.integer, .text, .blob, .blob, .null, .real])
        #expect(seen[0].1 == -42)
        #expect(seen[1].2 == Array("héllo".utf8))
        #expect(seen[2].2 == [1, 2, 3])
        #expect(seen[3].2.isEmpty && seen[4].2.isEmpty && seen[5].2.isEmpty)
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        let connection = try Connection(path: path)
        try connection.executeScript("CREATE TABLE t (v INTEGER UNIQUE)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(0))
    }

    @Test func uniquenessViolationIsRecognisedAndNeverQuotesBoundValues() throws {
        let connection = try Connection(path: path)
        try connection.executeScript("CREATE TABLE t (v TEXT UNIQUE)")
        try connection.execute("INSERT INTO t VALUES (?)", [.text("TOP-SECRET-VALUE")])
        do {
            try connection.execute("INSERT INTO t VALUES (?)", [.text("TOP-SECRET-VALUE")])
            Issue.record("duplicate accepted")
        } catch let error as DatabaseError {
            #expect(error.isUniquenessViolation)
            #expect(!error.description.contains("TOP-SECRET-VALUE"))
            #expect(error.description.contains("INSERT INTO t VALUES (?)"))
        }
    }

    @Test func nonDatabaseFileIsReportedAsCorruption() throws {
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: path))
        let connection = try Connection(path: path)
        do {
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            Issue.record("garbage read as a database")
        } catch let error as DatabaseError {
            #expect(error.isCorruption)
        }
    }

    @Test func migratorAppliesEachStepOnceAndRecordsTheVersion() throws {
        let connection = try Connection(path: path)
        let first = Migrator(migrations: [.init(version: 1, sql: "CREATE TABLE a (x)")])
        #expect(try first.version(of: connection) == 0)
        #expect(try first.migrate(connection) == 1)
        #expect(try first.version(of: connection) == 1)
        #expect(try first.migrate(connection) == 1)
        let second = Migrator(migrations: first.migrations + [.init(version: 2, sql: "CREATE TABLE b (y)")])
        #expect(try second.migrate(connection) == 2)
        #expect(
            try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b')")
                == .integer(2))
        #expect(try connection.scalar("SELECT MAX(version) FROM schema_version") == .integer(2))
    }

    @Test func failingMigrationLeavesTheSchemaAsItWas() throws {
        let connection = try Connection(path: path)
        let broken = Migrator(migrations: [
            .init(version: 1, sql: "CREATE TABLE a (x)"), .init(version: 2, sql: "CREATE TABLE a (x)"),
        ])
        #expect(throws: DatabaseError.self) { try broken.migrate(connection) }
        #expect(try connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'a'") == .integer(0))
    }

    @Test func writeAheadLoggingIsEnabled() throws {
        let connection = try Connection(path: path)
        try connection.enableWriteAheadLogging()
        #expect(try connection.scalar("PRAGMA journal_mode")?.text == "wal")
    }
}
