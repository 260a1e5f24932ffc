internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite

/// A keyed digest of what a keychain holds: the exclusive or of one HMAC-SHA256 code per `items` row and one for
/// the keybag (its wrapped class keys, the passcode's KDF and the count of wrong passcodes), under a key derived from
/// the device key.
///
/// The exclusive or makes it incremental: a write folds out the code of a row as it was and folds in the code of the
/// row as it is, so keeping it costs a few short hashes per changed row, never a scan. Without the key nobody can
/// compute a code, and codes are independent random-looking values, so no set of rows other than the current one
/// (an older copy of one row, a row removed or added) gives the same digest except with negligible probability.
///
/// A row's code covers its id and every column except the two sealed boxes (`attributes`, `secret`): each sealing
/// draws a fresh item key, whose salt (or, in rows sealed before format 2, wrapped form) in `wrapped_key` therefore
/// names one version of the row, and the boxes open only under that key. The lookup tables are left out: they only choose candidates, whose decrypted attributes
/// are checked anyway.
///
/// Not thread-safe: the engine that owns it serialises its use.
final class StateDigest {
    /// The length of a digest and of each code.
    static let byteCount = HMACSHA256.byteCount
    /// The digest of an empty state, and the code of an absent row.
    static let empty = [UInt8](repeating: 0, count: byteCount)

    private let key: HMACSHA256Key

    init(deviceKey: SecureBytes) throws {
        key = HMACSHA256Key(
            try HKDFSHA256.deriveKey(
                from: deviceKey, salt: [], info: Array("clavis.state-digest.v1".utf8), outputByteCount: 32))
    }

    /// The columns `itemRowCode(_:)` reads, in order.
    private static let itemColumns =
        "id, class, reference, protection, sync, tombstone, primary_digest, wrapped_key, sealing"

    /// The digest of everything the keychain holds now: a scan of every row, made once when it opens.
    func digestOfEverything(_ connection: Connection) throws -> [UInt8] {
        var digest = try keybagCode(connection)
        try connection.forEachRow("SELECT \(Self.itemColumns) FROM items") { row in
            Self.fold(itemRowCode(row), into: &digest)
            return true
        }
        return digest
    }

    /// The code of the `items` row `rowID` as stored now, `empty` when there is none.
    func itemRowCode(_ rowID: Int64, in connection: Connection) throws -> [UInt8] {
        var code = Self.empty
        try connection.forEachRow("SELECT \(Self.itemColumns) FROM items WHERE id = ?", [.integer(rowID)]) { row in
            code = itemRowCode(row)
            return false
        }
        return code
    }

    /// The settings the keybag's code covers besides its rows: the passcode's KDF, and the count of wrong passcodes
    /// and the lockout it led to (so that putting back an older count does not buy more guesses).
    static let keybagSettings = ["passcode_kdf", "passcode_failures", "passcode_locked_until"]

    /// The code of the keybag as stored now: every wrapped class key, in class order, `keybagSettings`, and the
    /// sealed settings.
    func keybagCode(_ connection: Connection) throws -> [UInt8] {
        var message = ByteWriter(capacity: 512)
        message.raw("keybag:".utf8)
        for row in try connection.rows("SELECT class, wrapped_key FROM keybag ORDER BY class") {
            Self.append(row, to: &message)
        }
        for name in Self.keybagSettings {
            Self.append(
                [try connection.scalar("SELECT value FROM settings WHERE name = ?", [.text(name)]) ?? .null],
                to: &message)
        }
        // The sealed settings (`Keychain.sealedSetting`), each named, when there are any: a keychain that has none
        // keeps the code it had before they existed.
        for row in try connection.rows(
            "SELECT name, value FROM settings WHERE name LIKE 'sealed.%' ORDER BY name")
        {
            Self.append(row, to: &message)
        }
        return key.authenticationCode(for: message.bytes)
    }

    /// Folds `code` into `digest`, or out of it (folding twice cancels).
    static func fold(_ code: [UInt8], into digest: inout [UInt8]) {
        for index in digest.indices { digest[index] ^= code[index] }
    }

    /// The code of the row `itemColumns` selected: each column's storage class and value, read in place (the open's
    /// scan makes one per row, so nothing is copied out of SQLite).
    private func itemRowCode(_ row: Row) -> [UInt8] {
        var message = ByteWriter(capacity: 192)
        message.raw("item:".utf8)
        for index in 0..<9 {
            let storageClass = row.storageClass(index)
            message.byte(storageClass.rawValue)
            switch storageClass {
            case .integer: message.int64(row.integer(index))
            case .text, .blob: row.withUnsafeBytes(index) { message.lengthPrefixed($0) }
            // Clavis stores no reals: a real's class alone already makes the code differ from any honest row's.
            case .null, .real: break
            }
        }
        return key.authenticationCode(for: message.bytes)
    }

    /// Appends each value tagged with its type and, for text and blobs, length-prefixed, so no two rows encode alike.
    private static func append(_ values: [DatabaseValue], to message: inout ByteWriter) {
        for value in values {
            switch value {
            case .null:
                message.byte(0)
            case .integer(let integer):
                message.byte(1)
                message.int64(integer)
            case .text(let text):
                message.byte(3)
                message.lengthPrefixed(text.utf8)
            case .blob(let blob):
                message.byte(4)
                message.lengthPrefixed(blob)
            }
        }
    }
}
