/// A value bound to or read from a statement.
public enum DatabaseValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The integer, when this is one.
    public var integer: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The text, when this is text.
    public var text: String? {
        if case .text(let value) = self { value } else { nil }
    }

    /// The bytes, when this is a blob (NULL and an empty blob both read as empty).
    public var blob: [UInt8]? {
        switch self {
        case .blob(let value): value
        case .null: []
        default: nil
        }
    }
}

extension DatabaseValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    /// An integer literal binds as an integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A string literal binds as text.
    public init(stringLiteral value: String) { self = .text(value) }
}
