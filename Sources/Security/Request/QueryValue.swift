/// A value of a caller's dictionary as `QueryDictionary` read it: the three kinds keychain dictionaries mostly hold
/// kept typed, so that reading one needs no dynamic cast, and anything else as it came.
enum QueryValue {
    /// An `NSString` of Foundation's own, converted.
    case string(String)
    /// An `NSData` of Foundation's own, copied.
    case data(Data)
    /// An `NSNumber`, or a `CFBoolean`, as given.
    case number(NSNumber)
    /// Anything else, or any value of a dictionary subclass, as the dictionary hands it out.
    case other(Any)

    /// The value as the caller gave it, for checks of a type of its own (`SecKey`, `LAContext`, ...).
    var object: Any {
        switch self {
        case .string(let string): string
        case .data(let data): data
        case .number(let number): number
        case .other(let value): value
        }
    }

    /// The value as a string, if it is one.
    var string: String? {
        switch self {
        case .string(let string): string
        case .data, .number: nil
        case .other(let value): value as? String
        }
    }

    /// The value as bytes, if it is data.
    var data: Data? {
        switch self {
        case .data(let data): data
        case .string, .number: nil
        case .other(let value): value as? Data
        }
    }

    /// The value as a number, if it is one (a boolean is one).
    var number: NSNumber? {
        switch self {
        case .number(let number): number
        case .string, .data: nil
        case .other(let value): value as? NSNumber
        }
    }
}
