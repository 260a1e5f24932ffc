internal import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One open SQLite database, owned here and closed in `deinit`.
///
/// Not `Sendable`: a connection belongs to one thread at a time; whoever shares it serialises access.
public final class Connection {
    let handle: OpaquePointer
    private var statements: [String: Statement] = [:]
    /// The statement run last, beside its text: a keychain runs the same read again and again, and comparing the
    /// text it passes (most often the very same string) costs less than hashing it to find the statement.
    private var lastStatement: (sql: String, statement: Statement)?
    private var transactionDepth = 0

    /// How open treats a missing file.
    public enum OpenMode: Sendable {
        /// Create the file when it does not exist.
        case readWriteCreate
        /// Fail when the file does not exist.
        case readWrite
        /// Read only, without writing even SQLite's shared-memory index (`readonly_shm`): for a database on a full
        /// or read-only file system. A write answers `SQLITE_READONLY`.
        case readOnly
        /// Read only, of a file nobody can change (on a read-only file system, with no write-ahead log): SQLite
        /// takes no lock and needs no shared-memory index (`immutable`).
        case immutable
    }

    /// Opens the database at `path`, waiting up to `busyTimeoutMilliseconds` for other connections' locks.
    ///
    /// With `refusingSymbolicLinks`, a path holding a symbolic link anywhere fails to open (`SQLITE_OPEN_NOFOLLOW`).
    public init(
        path: String, mode: OpenMode = .readWriteCreate, busyTimeoutMilliseconds: Int32 = 10_000,
        refusingSymbolicLinks: Bool = false
    ) throws(DatabaseError) {
        var opened: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var name = path
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:" + Self.uriEscaped(path) + "?readonly_shm=1"
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:" + Self.uriEscaped(path) + "?immutable=1"
        }
        if refusingSymbolicLinks { flags |= SQLITE_OPEN_NOFOLLOW }
        let status = sqlite3_open_v2(name, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            var message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let code = opened.map { sqlite3_extended_errcode($0) } ?? status
            let systemError = opened.map { Self.systemErrorNumber($0, resultCode: code) } ?? 0
            if systemError != 0 { message += ": " + String(cString: strerror(systemError)) }
            sqlite3_close_v2(opened)
            throw DatabaseError(
                resultCode: code == 0 ? status : code, message: message, sql: "open", systemErrorNumber: systemError)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit {
        lastStatement = nil
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that bind nothing (schema changes, pragmas).
    public func executeScript(_ sql: String) throws(DatabaseError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
    }

    /// Runs a statement with `values` bound to its placeholders, calling `row` for each result row.
    public func execute(_ sql: String, _ values: [DatabaseValue] = [], row: (Row) throws -> Void = { _ in }) throws {
        try statement(for: sql).run(values) { current in
            try row(current)
            return true
        }
    }

    /// Runs a query, calling `row` for each result row until it returns false.
    public func forEachRow(_ sql: String, _ values: [DatabaseValue] = [], while row: (Row) throws -> Bool) throws {
        try statement(for: sql).run(values, row: row)
    }

    /// Returns every row of a query, each as an array of column values.
    public func rows(_ sql: String, _ values: [DatabaseValue] = []) throws -> [[DatabaseValue]] {
        var rows: [[DatabaseValue]] = []
        try execute(sql, values) { row in
            rows.append((0..<row.count).map { row[$0] })
        }
        return rows
    }

    /// Returns the first column of the first row, or `nil` when there is no row.
    public func scalar(_ sql: String, _ values: [DatabaseValue] = []) throws -> DatabaseValue? {
        var value: DatabaseValue?
        try execute(sql, values) { row in
            if value == nil { value = row[0] }
        }
        return value
    }

    /// Switches the database to write-ahead logging (a setting kept in the file), so readers never block writers.
    ///
    /// SQLite answers a mode change with BUSY at once, without its busy handler, while another connection is
    /// mid-transaction; that happens when several processes create one database together, so retry for a while.
    public func enableWriteAheadLogging(retryingForMilliseconds limit: Int = 10_000) throws {
        var waited = 0
        while true {
            if try scalar("PRAGMA journal_mode")?.text?.lowercased() == "wal" { return }
            do {
                let mode = try scalar("PRAGMA journal_mode = WAL")?.text?.lowercased()
                guard mode == "wal" else {
                    throw DatabaseError(
                        resultCode: 1, message: "journal mode stays \(mode ?? "unknown")",
                        sql: "PRAGMA journal_mode = WAL")
                }
                return
            } catch let error as DatabaseError where error.isBusy && waited < limit {
                usleep(5_000)
                waited += 5
            }
        }
    }

    /// The device and inode of the database file this connection opened, or `nil` when they cannot be learned.
    ///
    /// SQLite opens by path and has no call that hands out its descriptor, so it is read from the open file
    /// (`SQLITE_FCNTL_FILE_POINTER`) of the `unix` VFS, whose file structure has begun with the methods, the VFS,
    /// the inode record and the descriptor since SQLite 3.7. The VFS is checked first, and a descriptor that is
    /// not an open regular file gives `nil`, which a caller checking identity treats as a mismatch.
    public var databaseFileIdentity: (device: UInt64, inode: UInt64)? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK, let file,
            file.pointee.pMethods != nil, let unix = sqlite3_vfs_find("unix")
        else { return nil }
        let layout = UnsafeRawPointer(file)
        let pointerSize = MemoryLayout<UnsafeRawPointer>.size
        guard layout.load(fromByteOffset: pointerSize, as: UnsafeRawPointer?.self) == UnsafeRawPointer(unix) else {
            return nil
        }
        let descriptor = layout.load(fromByteOffset: 3 * pointerSize, as: Int32.self)
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            return nil
        }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// A number that changes whenever the database changes, by this connection's writes or another's
    /// (`SQLITE_FCNTL_DATA_VERSION`): SQLite reads it as each read transaction starts. Numbers of different
    /// connections are not comparable.
    public var dataVersion: UInt32 {
        var version: UInt32 = 0
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        return version
    }

    /// The rowid of the last inserted row.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows the last statement changed.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// True inside a transaction (SQLite is out of autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction that commits when it returns and rolls back when it throws.
    ///
    /// `immediate` takes the write lock at the start, so two writers queue instead of failing on upgrade.
    /// Nested calls join the outer transaction.
    public func transaction<Result>(immediate: Bool = true, _ body: () throws -> Result) throws -> Result {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        // Prepared once and kept like any statement, rather than compiled again by `sqlite3_exec` on every write.
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` inside the open transaction as a part of it that is undone alone when `body` throws (a savepoint);
    /// calls of `transaction` within `body` join it. Must be called inside `transaction`.
    ///
    /// Some failures (a full disk, an I/O error) make SQLite roll back the whole transaction: the caller tells by
    /// `isInTransaction`, and then every part before this one is undone as well.
    public func savepoint<Result>(_ body: () throws -> Result) throws -> Result {
        precondition(transactionDepth > 0, "a savepoint is a part of an open transaction")
        try execute("SAVEPOINT part")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body()
            try execute("RELEASE part")
            return result
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TO part")
                try? execute("RELEASE part")
            }
            throw error
        }
    }

    private func statement(for sql: String) throws(DatabaseError) -> Statement {
        if let last = lastStatement, last.sql.utf8.count == sql.utf8.count, last.sql == sql { return last.statement }
        let found: Statement
        if let cached = statements[sql] {
            found = cached
        } else {
            found = try Statement(sql: sql, connection: self)
            statements[sql] = found
        }
        lastStatement = (sql, found)
        return found
    }

    func error(_ status: Int32, sql: String) -> DatabaseError {
        let extended = sqlite3_extended_errcode(handle)
        let code = extended == 0 ? status : extended
        return DatabaseError(
            resultCode: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql,
            systemErrorNumber: Self.systemErrorNumber(handle, resultCode: code))
    }

    /// The `errno` behind `resultCode`, or 0 when it is not an I/O failure.
    ///
    /// SQLite records the system's error only on `IOERR` and `CANTOPEN` and never clears it, so after one full
    /// disk every later error (busy, constraint, corruption) would carry its `ENOSPC`: keep it only for the
    /// codes it can explain.
    private static func systemErrorNumber(_ handle: OpaquePointer, resultCode: Int32) -> Int32 {
        switch resultCode & 0xFF {
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_FULL: sqlite3_system_errno(handle)
        default: 0
        }
    }

    /// `path` as a URI path: `%`, `?` and `#` percent-encoded.
    private static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3F"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
