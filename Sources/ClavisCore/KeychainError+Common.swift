public import FoundationEssentials

/// Errors more than one layer raises, worded once.
extension KeychainError {
    /// `itemNotFound` for a search of `itemClass` that matched nothing.
    public static func noItemMatches(_ itemClass: ItemClass) -> KeychainError {
        KeychainError(.itemNotFound, "no \(itemClass.rawValue) item matches the query")
    }

    /// `diskFull` for the file system holding the keychain folder `path`.
    public static func keychainDiskFull(folder path: String) -> KeychainError {
        KeychainError(.diskFull, "no space left on the file system of the keychain folder \(path)")
    }

    /// The error for a passcode attempt refused by a lockout (`authFailed`): it says so and for how long, since the
    /// passcode itself was never checked.
    public static func passcodeLockout(until: Date, now: Date = Date()) -> KeychainError {
        let seconds = max(Int(until.timeIntervalSince(now).rounded(.up)), 1)
        let wait = seconds < 120 ? "\(seconds) s" : "\((seconds + 59) / 60) min"
        return KeychainError(
            .authFailed,
            "passcode attempts are locked out after too many wrong passcodes; try again in \(wait)"
                + " (the passcode was not checked)")
    }
}
