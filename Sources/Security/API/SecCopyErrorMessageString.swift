import ClavisCore

/// Returns Apple's text for a status code, such as "The specified item could not be found in the keychain."
///
/// `reserved` must be `nil`. Unknown codes read "OSStatus <code>".
// swift-format-ignore: AlwaysUseLowerCamelCase
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    KeychainError.Code(rawValue: status).message as NSString
}

extension NSError {
    /// An error in `NSOSStatusErrorDomain` carrying the status and Apple's message, as Security's `CFError`s do.
    convenience init(keychainError error: KeychainError) {
        self.init(
            domain: NSOSStatusErrorDomain, code: Int(error.osStatus),
            userInfo: [NSLocalizedDescriptionKey: error.code.message, "reason": error.reason])
    }
}
