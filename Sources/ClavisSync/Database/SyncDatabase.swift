internal import CPostgres
public import ClavisCore

/// One connection to a sync server's PostgreSQL database, through libpq (loaded on first use): statements with bound
/// parameters, results read in binary format, transactions, and notifications (`LISTEN`).
///
/// Not thread-safe: one thread uses a connection at a time. Closed when the value goes.
public final class SyncDatabase {
    let connection: OpaquePointer
    /// How many `transaction` calls are open: the outermost begins and commits, an inner one is a savepoint.
    private var transactionDepth = 0

    /// Connects with `connectionString`, in libpq's syntax (`host=/run/postgresql dbname=clavis`, or a
    /// `postgresql://` URI); "" takes everything from the `PG*` environment. A password belongs in the environment
    /// or libpq's password file (`~/.pgpass`), never on a command line.
    ///
    /// - Throws: `notAvailable` when libpq cannot be loaded or the server cannot be reached, `authFailed` when it
    ///   refuses the login; the reason is libpq's.
    public init(connectionString: String) throws(KeychainError) {
        var message = [CChar](repeating: 0, count: 1024)
        guard let opened = clavis_pg_connect(connectionString, &message, message.count) else {
            let text = Self.trimmed(
                String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            let refused =
                text.contains("authentication failed") || text.contains("role") && text.contains("does not exist")
            throw KeychainError(refused ? .authFailed : .notAvailable, "cannot reach the sync database: \(text)")
        }
        connection = opened
    }

    deinit {
        clavis_pg_close(connection)
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, …, and returns its rows.
    ///
    /// - Throws: the statement's error (`SyncDatabase.error(state:message:)`).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SyncParameter] = []) throws(KeychainError) -> [SyncRow] {
        let encoded = parameters.map(\.encoded)
        var lengths = encoded.map { Int32($0.bytes?.count ?? 0) }
        var formats = encoded.map { Int32($0.format) }
        let result = Self.withPointers(to: encoded.map(\.bytes)) { values in
            clavis_pg_execute(connection, sql, Int32(parameters.count), values, &lengths, &formats)
        }
        return try rows(of: result)
    }

    /// Runs a script of statements without parameters (a migration), in one implicit transaction unless it has
    /// its own.
    public func executeScript(_ sql: String) throws(KeychainError) {
        _ = try rows(of: clavis_pg_execute_script(connection, sql))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. Inside another
    /// transaction it is a savepoint: its own changes go when it throws, and the outer transaction decides the rest.
    public func transaction<Result>(_ body: () throws(KeychainError) -> Result) throws(KeychainError) -> Result {
        let savepoint = transactionDepth == 0 ? nil : "clavis_\(transactionDepth)"
        try execute(savepoint.map { "SAVEPOINT \($0)" } ?? "BEGIN")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body()
            try execute(savepoint.map { "RELEASE SAVEPOINT \($0)" } ?? "COMMIT")
            return result
        } catch {
            _ = try? execute(savepoint.map { "ROLLBACK TO SAVEPOINT \($0)" } ?? "ROLLBACK")
            throw error
        }
    }

    /// The rows of a finished statement, freeing its result.
    private func rows(of result: OpaquePointer?) throws(KeychainError) -> [SyncRow] {
        guard let result else {
            throw KeychainError(.notAvailable, "the sync database connection failed: \(lastError)")
        }
        defer { clavis_pg_clear(result) }
        guard clavis_pg_succeeded(result) != 0 else {
            if clavis_pg_is_connected(connection) == 0 {
                throw KeychainError(.notAvailable, "the sync database connection was lost: \(lastError)")
            }
            throw Self.error(
                state: String(cString: clavis_pg_result_state(result)),
                message: Self.trimmed(String(cString: clavis_pg_result_error(result))))
        }
        let columns = clavis_pg_columns(result)
        var rows: [SyncRow] = []
        for row in 0..<clavis_pg_rows(result) {
            var values: [SyncValue] = []
            for column in 0..<columns {
                values.append(try SyncValue(result, row: row, column: column))
            }
            rows.append(SyncRow(values: values))
        }
        return rows
    }

    /// The connection's last error, as libpq words it.
    private var lastError: String { Self.trimmed(String(cString: clavis_pg_connection_error(connection))) }

    /// The error for a statement that failed with SQLSTATE `state`: `authFailed` for a refused login (class 28),
    /// `missingEntitlement` for a privilege or row-level security refusal (42501), `duplicateItem` for a unique
    /// violation (23505), `notAvailable` for a lost connection or a server shutting down (classes 08 and 57), `io` for
    /// any other. The reason is the
    /// server's message with the state.
    static func error(state: String, message: String) -> KeychainError {
        let code: KeychainError.Code =
            switch state {
            case "42501": .missingEntitlement
            case "23505": .duplicateItem
            case _ where state.hasPrefix("28"): .authFailed
            case _ where state.hasPrefix("08") || state.hasPrefix("57"): .notAvailable
            default: .io
            }
        return KeychainError(code, "sync database: \(message) (SQLSTATE \(state.isEmpty ? "none" : state))")
    }

    /// libpq's message on one line: its lines joined by "; ", without the trailing newline or indentation.
    private static func trimmed(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingPrefix(while: { $0 == " " || $0 == "\t" }) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }

    /// Calls `body` with a C array of pointers to copies of `buffers` (NULL for `nil`), each followed by a NUL byte
    /// (libpq reads a text parameter as a C string), valid for the call and zeroed after it.
    private static func withPointers<Result>(
        to buffers: [[UInt8]?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result
    ) -> Result {
        let copies: [UnsafeMutableBufferPointer<CChar>?] = buffers.map { buffer in
            guard let buffer else { return nil }
            let copy = UnsafeMutableBufferPointer<CChar>.allocate(capacity: buffer.count + 1)
            for (index, byte) in buffer.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[buffer.count] = 0
            return copy
        }
        defer {
            for copy in copies {
                guard let copy else { continue }
                // A parameter may be a secret's ciphertext or a key: zeroed before it is freed.
                copy.update(repeating: 0)
                copy.deallocate()
            }
        }
        let pointers = copies.map { $0.map { UnsafePointer($0.baseAddress!) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
