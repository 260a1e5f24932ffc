internal import CPostgres
internal import ClavisCore

/// One value of a result row, read from PostgreSQL's binary format by its column's type.
public enum SyncValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case text(String)
    case bytes([UInt8])

    /// The value in `row` and `column` of `result`.
    ///
    /// - Throws: `decode` for a type Clavis does not read or bytes that are not a value of it.
    init(_ result: OpaquePointer, row: Int32, column: Int32) throws(KeychainError) {
        if clavis_pg_is_null(result, row, column) != 0 {
            self = .null
            return
        }
        let count = Int(clavis_pg_length(result, row, column))
        let bytes: [UInt8] =
            count == 0
            ? [] : Array(UnsafeRawBufferPointer(start: clavis_pg_value(result, row, column), count: count))
        let type = clavis_pg_column_type(result, column)
        switch type {
        case 2278:
            // void: what a function called for its effect answers.
            self = .null
        case 16:
            guard count == 1 else { throw KeychainError(.decode, "a boolean of \(count) bytes") }
            self = .bool(bytes[0] != 0)
        case 20, 21, 23, 26:
            // int8, int2, int4 and oid: big-endian, of their own widths.
            guard [2, 4, 8].contains(count) else { throw KeychainError(.decode, "an integer of \(count) bytes") }
            let unsigned = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let shift = UInt64(64 - 8 * count)
            self = .integer(type == 26 ? Int64(unsigned) : Int64(bitPattern: unsigned << shift) >> Int64(shift))
        case 17:
            self = .bytes(bytes)
        case 19, 25, 1042, 1043:
            // name, text, char(n) and varchar: UTF-8.
            self = .text(String(decoding: bytes, as: UTF8.self))
        default:
            throw KeychainError(
                .decode, "the sync database answered a column of type \(type), which Clavis does not read")
        }
    }

    /// The integer, or `nil` for another kind.
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The text, or `nil` for another kind.
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    /// The bytes, or `nil` for another kind.
    public var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    /// The boolean, or `nil` for another kind.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
}

/// One row of a result, its values in the statement's column order.
public struct SyncRow: Sendable, Equatable {
    /// The values.
    public var values: [SyncValue]

    /// The value of column `index` (0-based), `.null` past the end.
    public subscript(index: Int) -> SyncValue { values.indices.contains(index) ? values[index] : .null }
}
