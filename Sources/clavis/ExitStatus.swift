import ClavisCore

/// Exit statuses of `clavis`, as macOS `security` derives them.
///
/// A failed keychain call exits with the low byte of its `OSStatus`, as `security` does: 44 for
/// `errSecItemNotFound` (-25300), 45 for `errSecDuplicateItem`, 51 for `errSecAuthFailed`, 36 for
/// `errSecInteractionNotAllowed`, 206 for `errSecParam`, 30 for `errSecMissingEntitlement`.
/// A command line that does not parse exits with 2; success with 0.
enum ExitStatus {
    /// Success.
    static let success: Int32 = 0
    /// A command line that does not parse.
    static let usage: Int32 = 2

    /// The exit status for a keychain status.
    static func forStatus(_ status: Int32) -> Int32 {
        status == 0 ? 0 : Int32(UInt8(truncatingIfNeeded: status))
    }

    /// The exit status for a failed keychain operation.
    static func forFailure(_ failure: KeychainError) -> Int32 { forStatus(failure.osStatus) }
}
