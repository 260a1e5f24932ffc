import ClavisCore
import ClavisCrypto
import ClavisSQLite
import ClavisTPM

/// Anti-rollback for a keychain bound to a TPM: a monotonic counter in the TPM's NV memory and, in `keychain.db`,
/// the count of the keychain's writes, authenticated under a key derived from the device key. Every write adds one
/// to the stored count and then brings the TPM's counter up to it; both steps hold SQLite's write lock, so the TPM's
/// counter never passes the stored count. A keychain whose stored count is below the TPM's counter is an older copy
/// put back: it refuses to open.
///
/// Granularity: one count per write call (an add, update, delete, passcode change or unlock), for the whole
/// keychain; a copy older than the last counted write is detected when it is opened. Cost: per write, one more
/// SQLite transaction, a TPM connection, an NV read and an NV increment (about a millisecond on swtpm; on a hardware
/// TPM several, and NV increments wear its memory). Not detected: one row put back from an older copy into a
/// current database (the count is the keychain's, not the row's).
struct RollbackCounter {
    /// The settings row holding the counter's index, the stored count and their authentication code.
    static let settingName = "rollback_counter"

    private let tcti: String
    private let index: UInt32
    private let key: SecureBytes

    /// Opens the keychain's counter: creates it for a keychain that has none yet (when it can be written), else
    /// checks the stored count against the TPM's and brings the TPM's up to it after an interrupted write.
    ///
    /// - Throws: `invalidKeychain` when the record was altered or the stored count is below the TPM's counter (an
    ///   older copy of `keychain.db` was put back); `notAvailable` when the TPM refuses.
    init(connection: Connection, tcti: String, deviceKey: SecureBytes, writable: Bool) throws {
        self.tcti = tcti
        key = try HKDFSHA256.deriveKey(
            from: deviceKey, salt: [], info: Array("clavis rollback counter".utf8), outputByteCount: 32)
        let select = "SELECT value FROM settings WHERE name = ?"
        var stored = try connection.scalar(select, [.text(Self.settingName)])?.blob
        if stored == nil && writable {
            // Created under the write lock, so that two processes opening a new keychain make one counter.
            stored = try connection.transaction { [key] () throws -> [UInt8] in
                if let made = try connection.scalar(select, [.text(Self.settingName)])?.blob { return made }
                let created = try TPMConnection(tcti: tcti).createCounter()
                let record = Self.record(index: created.index, count: created.value, key: key)
                try connection.execute(
                    "INSERT INTO settings (name, value) VALUES (?, ?)", [.text(Self.settingName), .blob(record)])
                return record
            }
        }
        guard let stored else {
            // A read-only keychain that never had a counter: nothing to check, and no write to count.
            index = 0
            return
        }
        guard stored.count == 44, let count = Self.count(stored, key: key) else {
            throw KeychainError(.invalidKeychain, "the keychain's anti-rollback record was altered")
        }
        index = stored.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let counted = try TPMConnection(tcti: tcti).counterValue(index)
        guard count >= counted else {
            throw KeychainError(
                .invalidKeychain,
                "keychain.db is an older copy: it counts \(count) writes and the TPM's anti-rollback counter "
                    + "\(counted); a restored or rolled-back keychain is refused")
        }
        if writable { try catchUp(connection) }
    }

    /// Counts one write: the stored count goes up by one, then the TPM's counter is brought up to it.
    func recordWrite(_ connection: Connection) throws {
        guard index != 0 else { return }
        try connection.transaction {
            guard let count = try storedCount(connection) else {
                throw KeychainError(.invalidKeychain, "the keychain's anti-rollback record was altered")
            }
            try store(count + 1, in: connection)
        }
        try catchUp(connection)
    }

    /// Holding the write lock, increments the TPM's counter until it reaches the stored count.
    private func catchUp(_ connection: Connection) throws {
        try connection.transaction {
            guard let count = try storedCount(connection) else { return }
            let tpm = try TPMConnection(tcti: tcti)
            var counted = try tpm.counterValue(index)
            while counted < count {
                try tpm.incrementCounter(index)
                counted += 1
            }
        }
    }

    private func storedCount(_ connection: Connection) throws -> UInt64? {
        let stored = try connection.scalar("SELECT value FROM settings WHERE name = ?", [.text(Self.settingName)])?.blob
        return stored.flatMap { Self.count($0, key: key) }
    }

    private func store(_ count: UInt64, in connection: Connection) throws {
        try connection.execute(
            "INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)",
            [.text(Self.settingName), .blob(Self.record(index: index, count: count, key: key))])
    }

    /// The record of `count` for the counter at `index`: both, big-endian, and their authentication code.
    private static func record(index: UInt32, count: UInt64, key: SecureBytes) -> [UInt8] {
        let body =
            (0..<4).map { UInt8(truncatingIfNeeded: index >> (24 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: count >> (56 - 8 * $0)) }
        return body + HMACSHA256.authenticationCode(for: body, key: key)
    }

    /// The count a record holds, or `nil` when its authentication code is wrong.
    private static func count(_ record: [UInt8], key: SecureBytes) -> UInt64? {
        guard record.count == 44 else { return nil }
        let body = Array(record.prefix(12))
        guard ConstantTime.equals(HMACSHA256.authenticationCode(for: body, key: key), Array(record.suffix(32))) else {
            return nil
        }
        return body.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
