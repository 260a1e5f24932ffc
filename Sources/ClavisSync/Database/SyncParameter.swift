/// A value bound to a statement's parameter (`$1`, `$2`, …).
public enum SyncParameter: Sendable {
    /// Text (`text`, `name`, and any type PostgreSQL reads from text).
    case text(String)
    /// Bytes (`bytea`), sent as they are.
    case bytes([UInt8])
    /// An integer, sent as text so that the column's type (`integer`, `bigint`) decides.
    case integer(Int64)
    /// SQL NULL.
    case null

    /// The bytes libpq sends and their format (0 text, 1 binary).
    var encoded: (bytes: [UInt8]?, format: Int) {
        switch self {
        case .text(let text): (Array(text.utf8), 0)
        case .bytes(let bytes): (bytes, 1)
        case .integer(let value): (Array(String(value).utf8), 0)
        case .null: (nil, 0)
        }
    }
}
