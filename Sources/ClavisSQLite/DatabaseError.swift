#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A failed SQLite call: the result code, SQLite's message and the SQL text, never the values bound to it.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// SQLite's primary or extended result code.
    public let resultCode: Int32
    /// SQLite's explanation (`sqlite3_errmsg`), which never quotes bound values.
    public let message: String
    /// The statement that failed, as written (with `?` placeholders), or the operation's name.
    public let sql: String

    /// The operating system's `errno` behind an I/O failure (`IOERR`, `CANTOPEN`, `FULL`), or 0.
    public let systemErrorNumber: Int32

    /// Creates an error.
    public init(resultCode: Int32, message: String, sql: String, systemErrorNumber: Int32 = 0) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.systemErrorNumber = systemErrorNumber
    }

    /// True when the file system had no room (SQLite's `FULL`, or an I/O failure with `ENOSPC` or `EDQUOT`).
    public var isDiskFull: Bool {
        primaryCode == Self.full || systemErrorNumber == ENOSPC || systemErrorNumber == EDQUOT
    }

    /// True when the connection or the file cannot be written (`SQLITE_READONLY`, `EROFS`).
    public var isReadOnly: Bool { primaryCode == Self.readOnly || systemErrorNumber == EROFS }

    /// True when SQLite could not open the file or one of its companions (`SQLITE_CANTOPEN`).
    public var isCannotOpen: Bool { primaryCode == Self.cannotOpen }

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { resultCode & 0xFF }

    /// True for a violated UNIQUE or PRIMARY KEY constraint.
    public var isUniquenessViolation: Bool {
        resultCode == Self.constraintUnique || resultCode == Self.constraintPrimaryKey
    }

    /// True when the file is not a database or is damaged.
    public var isCorruption: Bool { primaryCode == Self.notADatabase || primaryCode == Self.corrupt }

    /// True when another connection held the lock past the busy timeout.
    public var isBusy: Bool { primaryCode == Self.busy || primaryCode == Self.locked }

    /// Code, message and SQL on one line.
    public var description: String { "SQLite error \(resultCode): \(message) [\(sql)]" }

    static let busy: Int32 = 5
    static let readOnly: Int32 = 8
    static let full: Int32 = 13
    static let cannotOpen: Int32 = 14
    static let locked: Int32 = 6
    static let corrupt: Int32 = 11
    static let notADatabase: Int32 = 26
    static let constraintUnique: Int32 = 2067
    static let constraintPrimaryKey: Int32 = 1555
}
