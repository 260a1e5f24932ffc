/// The name of an error domain, such as `kCFErrorDomainOSStatus`.
public typealias CFErrorDomain = CFString

/// The domain of errors whose code is an `OSStatus`: every error Security hands back.
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain! = NSOSStatusErrorDomain as NSString

/// Returns the error's domain.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorGetDomain(_ error: CFError!) -> CFErrorDomain! {
    error.domain as NSString
}

/// Returns the error's code: for Security's errors, the `OSStatus`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorGetCode(_ error: CFError!) -> CFIndex {
    error.code
}

/// Returns the error's user-info dictionary (empty when it has none).
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! {
    NSDictionary(dictionary: error.userInfo)
}

/// Returns a human-readable description of the error.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyDescription(_ error: CFError!) -> CFString! {
    error.localizedDescription as NSString
}

/// Returns why the error happened, when the error says.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyFailureReason(_ error: CFError!) -> CFString? {
    error.localizedFailureReason.map { $0 as NSString }
}

/// Returns what the user might do about the error, when the error says.
// swift-format-ignore: AlwaysUseLowerCamelCase
public func CFErrorCopyRecoverySuggestion(_ error: CFError!) -> CFString? {
    error.localizedRecoverySuggestion.map { $0 as NSString }
}
