import ClavisCore
import ClavisSQLite
import Glibc
import Testing

/// Writes a keychain an earlier version of Clavis left: its database from a `sqlite3 .dump` and its device key.
enum KeychainFixture {
    /// Creates `home` with the device key `deviceKey` (hexadecimal) and a database holding `dump`.
    static func write(dump: String, deviceKey: String, to home: KeychainHome) throws {
        let parent = String(home.path.dropLast("/home".count))
        #expect(mkdir(parent, 0o700) == 0 || errno == EEXIST)
        #expect(mkdir(home.path, 0o700) == 0)
        let key: [UInt8] = stride(from: 0, to: deviceKey.utf8.count, by: 2).map { offset in
            let digits = Array(deviceKey.utf8)[offset..<offset + 2]
            return UInt8(String(decoding: digits, as: UTF8.self), radix: 16)!
        }
        let file = Glibc.open(home.deviceKeyPath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(file >= 0)
        #expect(Glibc.write(file, key, key.count) == key.count)
        close(file)
        let connection = try Connection(path: home.databasePath, mode: .readWriteCreate)
        try connection.executeScript("PRAGMA journal_mode = WAL; PRAGMA application_id = 1129076307;")
        try connection.executeScript(dump)
    }
}
