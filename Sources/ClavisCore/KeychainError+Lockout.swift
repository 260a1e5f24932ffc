public import FoundationEssentials

extension KeychainError {
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
