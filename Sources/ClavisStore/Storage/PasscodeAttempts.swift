internal import ClavisCore
internal import ClavisSQLite
internal import FoundationEssentials

/// Counts consecutive wrong passcodes in the keychain (so every process shares the count) and locks attempts out
/// with a growing backoff: after 5 failures 1 minute, then 5, 15 and 60 minutes for each further failure.
enum PasscodeAttempts {
    static let freeAttempts = 5
    static let backoff: [TimeInterval] = [60, 300, 900, 3600]

    /// When attempts are allowed again, or `nil` when they are allowed now.
    static func lockedUntil(_ connection: Connection, now: Date) throws -> Date? {
        guard let text = try setting("passcode_locked_until", connection), let seconds = Double(text), seconds.isFinite
        else { return nil }
        // Never longer than the longest backoff from now, whatever the file says.
        let until = min(Date(timeIntervalSince1970: seconds), now.addingTimeInterval(backoff.last ?? 3600))
        return until > now ? until : nil
    }

    /// Records one wrong passcode and returns the lockout it starts, if any.
    @discardableResult
    static func recordFailure(_ connection: Connection, now: Date) throws -> Date? {
        try connection.transaction {
            let recorded = try setting("passcode_failures", connection).flatMap { Int($0) } ?? 0
            let failures = min(max(recorded, 0), 1_000_000) + 1
            try store("passcode_failures", String(failures), connection)
            guard failures >= freeAttempts else { return nil }
            let until = now.addingTimeInterval(backoff[min(failures - freeAttempts, backoff.count - 1)])
            try store("passcode_locked_until", String(until.timeIntervalSince1970), connection)
            return until
        }
    }

    /// Clears the count after a right passcode.
    static func recordSuccess(_ connection: Connection) throws {
        try connection.execute("DELETE FROM settings WHERE name IN ('passcode_failures', 'passcode_locked_until')")
    }

    private static func setting(_ name: String, _ connection: Connection) throws -> String? {
        try connection.scalar("SELECT value FROM settings WHERE name = ?", [.text(name)])?.blob
            .map { String(decoding: $0, as: UTF8.self) }
    }

    private static func store(_ name: String, _ value: String, _ connection: Connection) throws {
        try connection.execute(
            "INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)", [.text(name), .blob(Array(value.utf8))])
    }
}
