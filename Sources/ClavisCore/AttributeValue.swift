public import FoundationEssentials

/// The value of one attribute: the handful of property-list types Apple's keychain stores.
public enum AttributeValue: Hashable, Sendable {
    /// A string (`CFString`).
    case string(String)
    /// Bytes (`CFData`).
    case data(Data)
    /// An integer (`CFNumber`).
    case number(Int64)
    /// A boolean (`CFBoolean`).
    case bool(Bool)
    /// A point in time (`CFDate`).
    case date(Date)

    /// The kinds of value, used to check an attribute against its class's schema.
    public enum Kind: String, Sendable {
        case string, data, number, bool, date
        /// A schema kind only, for Apple's blob columns (account, service, label, ...): a string, data or a number,
        /// each kept as given. The type is part of the value: the string "k" and the bytes of "k" differ.
        case blob

        /// True when a value of kind `value` may be stored in an attribute of this schema kind.
        public func admits(_ value: Kind) -> Bool {
            switch self {
            case .blob: value == .string || value == .data || value == .number
            case .bool: value == .bool || value == .number
            default: value == self
            }
        }
    }

    /// This value's kind (never `.blob`, which only a schema names).
    public var kind: Kind {
        switch self {
        case .string: .string
        case .data: .data
        case .number: .number
        case .bool: .bool
        case .date: .date
        }
    }

    /// The value an absent attribute of `kind` counts as in a primary key: "" or 0.
    public static func absent(_ kind: Kind) -> AttributeValue {
        switch kind {
        case .string, .blob: .string("")
        case .data: .data(Data())
        case .number: .number(0)
        case .bool: .bool(false)
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        }
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The boolean, when this is one; numbers count as booleans the way `CFBoolean` bridging does.
    public var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .number(let value): value != 0
        default: nil
        }
    }
}
