internal import ClavisCore
internal import ClavisSQLite

extension Connection {
    /// A further connection to a keychain's database at `path` that reads only (`query_only`), after `settings`: the
    /// read pin's and each reader's. SQLite opens by path, so the file it opened must be the one `databaseFile` names
    /// (the keychain's own connection's), not another swapped in meanwhile.
    ///
    /// - Throws: `io` when the file opened is another; SQLite's error when it cannot be opened.
    static func queryOnly(
        path: String, sameFileAs databaseFile: (device: UInt64, inode: UInt64), busyTimeoutMilliseconds: Int32,
        settings: String = ""
    ) throws -> Connection {
        let connection = try Connection(
            path: path, mode: .readWrite, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
            refusingSymbolicLinks: true)
        guard let opened = connection.databaseFileIdentity, opened.device == databaseFile.device,
            opened.inode == databaseFile.inode
        else {
            throw KeychainError(.io, "\(path) is no longer the keychain.db this keychain opened")
        }
        try connection.executeScript(settings + " PRAGMA query_only = ON;")
        return connection
    }
}
