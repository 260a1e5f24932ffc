/// The type identifiers `CFGetTypeID` answers, one per kind of object keychain code meets.
///
/// Apple assigns them at run time; code only ever compares them with the matching `…GetTypeID()`, so fixed values
/// serve (those of Core Foundation's classic types where it has them).
enum CoreFoundationTypeID: CFTypeID {
    case null = 16
    case string = 7
    case dictionary = 18
    case array = 19
    case data = 20
    case boolean = 21
    case number = 22
    case date = 42
    case error = 45
    case accessControl = 0x5343_4143
    case key = 0x5343_4b59
    case certificate = 0x5343_4345
    case policy = 0x5343_504f
    case trust = 0x5343_5452
    case identity = 0x5343_4944
    /// Any other object.
    case unknown = 1

    /// The identifier of `object`'s type.
    init(of object: AnyObject) {
        switch object {
        case is SecAccessControl: self = .accessControl
        case is SecKey: self = .key
        case is SecCertificate: self = .certificate
        case is SecPolicy: self = .policy
        case is SecTrust: self = .trust
        case is SecIdentity: self = .identity
        case is NSNull: self = .null
        case is NSString: self = .string
        case is NSDictionary: self = .dictionary
        case is NSArray: self = .array
        case is NSData: self = .data
        case is NSDate: self = .date
        case is NSError: self = .error
        case let number as NSNumber: self = Self.isBoolean(number) ? .boolean : .number
        default: self = .unknown
        }
    }

    /// True for `kCFBooleanTrue`/`kCFBooleanFalse` and bridged `Bool`s, which Foundation on Linux keeps in a
    /// boolean subclass of `NSNumber` (an `Int8` number shares their `objCType`, so the class is what tells).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(describing: type(of: number)) == "__NSCFBoolean"
    }
}

/// Returns the type identifier of a Core Foundation object, to compare with `SecAccessControlGetTypeID()`,
/// `CFStringGetTypeID()` and the like.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFGetTypeID(_ object: CFTypeRef!) -> CFTypeID {
    CoreFoundationTypeID(of: object).rawValue
}

/// The type identifier of strings.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFStringGetTypeID() -> CFTypeID { CoreFoundationTypeID.string.rawValue }

/// The type identifier of dictionaries.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFDictionaryGetTypeID() -> CFTypeID { CoreFoundationTypeID.dictionary.rawValue }

/// The type identifier of arrays.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFArrayGetTypeID() -> CFTypeID { CoreFoundationTypeID.array.rawValue }

/// The type identifier of byte buffers.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFDataGetTypeID() -> CFTypeID { CoreFoundationTypeID.data.rawValue }

/// The type identifier of booleans.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFBooleanGetTypeID() -> CFTypeID { CoreFoundationTypeID.boolean.rawValue }

/// The type identifier of numbers.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFNumberGetTypeID() -> CFTypeID { CoreFoundationTypeID.number.rawValue }

/// The type identifier of dates.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFDateGetTypeID() -> CFTypeID { CoreFoundationTypeID.date.rawValue }

/// The type identifier of errors.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorGetTypeID() -> CFTypeID { CoreFoundationTypeID.error.rawValue }

/// The type identifier of `kCFNull`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFNullGetTypeID() -> CFTypeID { CoreFoundationTypeID.null.rawValue }
