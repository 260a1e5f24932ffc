internal import ClavisCore
internal import ClavisSQLite

extension KeychainEngine {
    /// Opens `keychain.db` in `folder` for reading and writing, or, when its file system is full or read-only,
    /// for reading only, together with the error every write then answers.
    ///
    /// SQLite gets the folder's resolved path and refuses any link on it, so the database it opens is the file the
    /// folder checked, never a link's target.
    /// - Parameter path: the path SQLite is given, by default the folder's resolved path; tests name another file
    ///   to stand for a folder swapped between the check and the open.
    static func openDatabase(
        in folder: KeychainFolder, home: KeychainHome, path: String? = nil, mapsDatabase: Bool = true
    ) throws -> (
        Connection, writeRefusal: KeychainError?
    ) {
        let path = try path ?? folder.resolvedPath() + "/" + KeychainHome.databaseName
        do {
            let connection = try Connection(path: path, refusingSymbolicLinks: true)
            try checkOpenedFile(connection, in: folder, path: path)
            try checkIsKeychain(connection, path: home.databasePath)
            try connection.enableWriteAheadLogging()
            try connection.executeScript(KeychainDatabaseSettings.writes)
            try configureReads(connection, mapsDatabase: mapsDatabase)
            let version = try refusingNewerSchema(connection, home: home)
            try Schema.migrator.migrate(connection)
            if Schema.rebuildingVersions.contains(where: { $0 > version && version > 0 }) {
                compactAfterRebuild(connection)
            }
            try foldOversizedLog(connection, size: folder.size(of: KeychainHome.databaseName + "-wal"))
            return (connection, nil)
        } catch let failure as DatabaseError where failure.isDiskFull || failure.isReadOnly || failure.isCannotOpen {
            // Even SQLite's shared-memory index cannot be written (a full disk, or a read-only file system where
            // it cannot be created): read without it.
            let readOnlyFileSystem = folder.isOnReadOnlyFileSystem
            let refusal = writeRefusal(failure, home: home, readOnlyFileSystem: readOnlyFileSystem)
            let connection: Connection
            do {
                // On a read-only file system without a log, nothing can change the file and SQLite could not create
                // its index: read it as immutable.
                let immutable = readOnlyFileSystem && folder.size(of: KeychainHome.databaseName + "-wal") == nil
                connection = try Connection(
                    path: path, mode: immutable ? .immutable : .readOnly, refusingSymbolicLinks: true)
                try checkIsKeychain(connection, path: home.databasePath)
                try configureReads(connection, mapsDatabase: mapsDatabase)
            } catch {
                guard failure.isDiskFull || failure.isReadOnly || readOnlyFileSystem else {
                    throw KeychainError(.io, "cannot open \(home.databasePath): \(failure.message)")
                }
                throw refusal
            }
            try checkOpenedFile(connection, in: folder, path: path)
            _ = try refusingNewerSchema(connection, home: home)
            return (connection, refusal)
        } catch let error as DatabaseError where !error.isCorruption {
            throw KeychainError(.io, "cannot open \(home.databasePath): \(error.message)")
        }
    }

    /// The schema version of the keychain `connection` opened, refused when it is newer than this build's: a newer
    /// build's tables or rows could be misread, or lost by a write that does not know them. Nothing is changed.
    ///
    /// - Throws: `invalidKeychain` naming both versions.
    private static func refusingNewerSchema(_ connection: Connection, home: KeychainHome) throws -> Int {
        let version = try Schema.migrator.version(of: connection)
        let supported = Schema.migrator.latestVersion
        guard version <= supported else {
            throw KeychainError(
                .invalidKeychain,
                "\(home.databasePath) has schema version \(version), newer than this build's \(supported): "
                    + "open it with the newer Clavis that wrote it")
        }
        return version
    }

    /// Keeps a read cheap, as `KeychainDatabaseSettings.reads` says. Durability is untouched (`synchronous = FULL`).
    private static func configureReads(_ connection: Connection, mapsDatabase: Bool) throws {
        try connection.executeScript(KeychainDatabaseSettings.reads(mapsDatabase: mapsDatabase))
    }

    /// Gives back the pages a migration's rebuilt tables left free (migration 2's items table: otherwise the file of
    /// a version-1 keychain keeps about 60% more pages until as many new items fill them; migration 6's lookup
    /// tables, about a fifth of a version-5 file). `VACUUM` copies the database through a
    /// transient database, kept in memory rather than in a temporary file. Best effort: another process reading the
    /// keychain makes it fail, and the pages are reused anyway.
    private static func compactAfterRebuild(_ connection: Connection) {
        try? connection.executeScript("PRAGMA temp_store = MEMORY; VACUUM; PRAGMA temp_store = DEFAULT;")
    }

    /// The error a write answers for `error`: on a full or read-only file system, the refusal that names the keychain's
    /// folder and says why (the one the keychain was opened with, if it was opened read-only); any other as it is.
    func refusal(for error: any Error) -> any Error {
        guard let database = error as? DatabaseError, database.isDiskFull || database.isReadOnly else { return error }
        return writeRefusal ?? Self.writeRefusal(database, home: home)
    }

    /// The error a write answers when the keychain's file system is full or read-only.
    static func writeRefusal(_ error: DatabaseError, home: KeychainHome, readOnlyFileSystem: Bool = false)
        -> KeychainError
    {
        if error.isDiskFull {
            return KeychainError.keychainDiskFull(folder: home.path)
        }
        if readOnlyFileSystem {
            return KeychainError(
                .io, "the keychain folder \(home.path) cannot be written: it is on a read-only file system")
        }
        return KeychainError(.io, "the keychain folder \(home.path) cannot be written (\(error.message))")
    }

    /// Refuses a connection whose file is not the folder's `keychain.db`: SQLite opens by path, and another user
    /// able to rename a parent folder could swap the folder between its check and the open.
    private static func checkOpenedFile(_ connection: Connection, in folder: KeychainFolder, path: String) throws {
        let opened = connection.databaseFileIdentity
        let held = folder.identity(of: KeychainHome.databaseName)
        guard let opened, let held, opened.device == held.device, opened.inode == held.inode else {
            throw KeychainError(
                .io, "\(path) is not the keychain.db of \(folder.path): the folder was replaced while it was opened")
        }
    }

    /// A process that exits without closing the database leaves its log behind, and the next one cannot tell how
    /// much of it was already copied back, so the log only grows. Past 4 MiB, fold it back and truncate it.
    private static func foldOversizedLog(_ connection: Connection, size: Int?) throws {
        guard let size, size > 4 * 1024 * 1024 else { return }
        _ = try connection.rows("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Accepts a Clavis keychain or an empty database. Both facts are read from one snapshot: another process may
    /// be creating the keychain at this moment, and reading them apart could see its tables but not its id.
    private static func checkIsKeychain(_ connection: Connection, path: String) throws {
        let (applicationID, tables) = try connection.transaction(immediate: false) {
            (
                try connection.scalar("PRAGMA application_id")?.integer ?? 0,
                try connection.scalar("SELECT count(*) FROM sqlite_master")?.integer ?? 0
            )
        }
        if applicationID == Schema.applicationID { return }
        guard applicationID == 0, tables == 0 else {
            throw KeychainError(.invalidKeychain, "\(path) is an SQLite database but not a Clavis keychain")
        }
    }
}
