/// A status code returned by every keychain call: `errSecSuccess` (0) or one of the `errSec*` codes.
public typealias OSStatus = Int32

/// Core Foundation's string; bridged to Foundation's, so `kSecX as String` and `"x" as CFString` work.
public typealias CFString = NSString
/// Core Foundation's dictionary; `[String: Any]` converts with `as CFDictionary`.
public typealias CFDictionary = NSDictionary
/// Core Foundation's mutable dictionary.
public typealias CFMutableDictionary = NSMutableDictionary
/// Any Core Foundation object: results of `SecItemCopyMatching` arrive as one.
public typealias CFTypeRef = AnyObject
/// Core Foundation's error.
public typealias CFError = NSError
/// Core Foundation's byte buffer; casts to `Data`.
public typealias CFData = NSData
/// Core Foundation's array; casts to `[Data]` or `[[String: Any]]`.
public typealias CFArray = NSArray
/// Core Foundation's number.
public typealias CFNumber = NSNumber
/// Core Foundation's boolean; casts to `Bool`.
public typealias CFBoolean = NSNumber
/// Core Foundation's date.
public typealias CFDate = NSDate
/// Core Foundation's signed index type.
public typealias CFIndex = Int
/// Core Foundation's option-flag word.
public typealias CFOptionFlags = UInt
/// Core Foundation's type identifier.
public typealias CFTypeID = UInt

/// A Core Foundation allocator; Clavis ignores allocators, so every one behaves as the default.
public final class CFAllocator: Sendable {
    fileprivate init() {}
}

/// The default allocator (`nil` means the same thing everywhere it is accepted).
public let kCFAllocatorDefault: CFAllocator! = CFAllocator()

/// The boolean true, for dictionaries such as `[kSecReturnData: kCFBooleanTrue!]`.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)

/// The boolean false.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
