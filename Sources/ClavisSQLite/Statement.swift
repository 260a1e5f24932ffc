internal import CSQLite

/// One prepared statement, owned here and finalized in `deinit`; reused through the connection's cache.
final class Statement {
    private let handle: OpaquePointer
    private unowned let connection: Connection
    let sql: String

    init(sql: String, connection: Connection) throws(DatabaseError) {
        var prepared: OpaquePointer?
        let status = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard status == SQLITE_OK, let prepared else {
            throw connection.error(status, sql: sql)
        }
        handle = prepared
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to the placeholders in order, steps through the rows while `row` returns true, then resets.
    func run(_ values: [DatabaseValue], row: (Row) throws -> Bool) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bind(values)
        while true {
            let status = sqlite3_step(handle)
            switch status {
            case SQLITE_ROW: if try !row(Row(handle: handle)) { return }
            case SQLITE_DONE: return
            default: throw connection.error(status, sql: sql)
            }
        }
    }

    private func bind(_ values: [DatabaseValue]) throws(DatabaseError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        precondition(values.count == expected, "statement takes \(expected) values, got \(values.count): \(sql)")
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null:
                status = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                status = sqlite3_bind_int64(handle, index, integer)
            case .text(let text):
                // The string's own UTF-8, with its length: no C string is built.
                var text = text
                status = text.withUTF8 { bytes in
                    clavis_sqlite3_bind_text_transient(
                        handle, index,
                        Self.start(of: UnsafeRawBufferPointer(bytes)).assumingMemoryBound(to: CChar.self),
                        Int32(bytes.count))
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    clavis_sqlite3_bind_blob_transient(handle, index, Self.start(of: buffer), Int32(buffer.count))
                }
            }
            guard status == SQLITE_OK else { throw connection.error(status, sql: sql) }
        }
    }

    /// Where `buffer` starts, or a valid pointer when it is empty: SQLite binds a null pointer as NULL, where an
    /// empty string must bind as text and an empty blob as a blob.
    private static func start(of buffer: UnsafeRawBufferPointer) -> UnsafeRawPointer {
        buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
    }
}

/// The current row of a running statement; valid only inside the row callback.
public struct Row {
    fileprivate let handle: OpaquePointer

    fileprivate init(handle: OpaquePointer) { self.handle = handle }

    /// The number of columns.
    public var count: Int { Int(sqlite3_column_count(handle)) }

    /// SQLite's storage class of a column's value.
    public enum StorageClass: UInt8, Sendable {
        case null = 0
        case integer = 1
        case real = 2
        case text = 3
        case blob = 4
    }

    /// The storage class of column `index`'s value (from 0).
    public func storageClass(_ index: Int) -> StorageClass {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Column `index`'s value as a 64-bit integer (0 for NULL), without making a `DatabaseValue`.
    public func integer(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    /// Lends column `index`'s bytes (a blob's, or a text's UTF-8) to `body` without copying them: for a scan that
    /// only hashes them. Empty for any other value.
    public func withUnsafeBytes<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows
        -> Result
    {
        let column = Int32(index)
        let start: UnsafeRawPointer? =
            switch storageClass(index) {
            case .blob: sqlite3_column_blob(handle, column)
            case .text: sqlite3_column_text(handle, column).map { UnsafeRawPointer($0) }
            case .integer, .real, .null: nil
            }
        guard let start else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// Column `index`'s bytes when it holds a blob (NULL reads as empty, as `DatabaseValue.blob` has it), else nil:
    /// `self[index].blob` without a `DatabaseValue` in between, for rows read on every call.
    public func blob(_ index: Int) -> [UInt8]? {
        if storageClass(index) == .blob { return blobBytes(Int32(index)) }
        return readsAsBlob(index) ? [] : nil
    }

    /// True when `blob(index)` is not nil, found without copying the bytes: a blob, or NULL (an empty blob), as the
    /// subscript reads them; a real the subscript reads as NULL (one that is not whole) is NULL here too.
    public func readsAsBlob(_ index: Int) -> Bool {
        switch storageClass(index) {
        case .blob, .null: true
        case .integer, .text: false
        case .real: wholeReal(Int32(index)) == nil
        }
    }

    /// Column `index`'s text when it holds text, else nil: `self[index].text` without a `DatabaseValue`.
    public func text(_ index: Int) -> String? {
        storageClass(index) == .text ? textString(Int32(index)) : nil
    }

    private func blobBytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// A real column's value when it is a whole number: Clavis never stores reals, so one in a tampered file reads as
    /// an integer when it is one, else as NULL.
    private func wholeReal(_ column: Int32) -> Int64? {
        Int64(exactly: sqlite3_column_double(handle, column))
    }

    /// The text's bytes as SQLite counts them, NUL bytes included (a C-string read would stop at the first),
    /// decoded as UTF-8 with any invalid sequence replaced.
    private func textString(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The value of column `index` (from 0).
    public subscript(index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch storageClass(index) {
        case .integer:
            return .integer(sqlite3_column_int64(handle, column))
        case .text:
            return .text(textString(column))
        case .blob:
            return .blob(blobBytes(column))
        case .real:
            return wholeReal(column).map(DatabaseValue.integer) ?? .null
        case .null:
            return .null
        }
    }
}
