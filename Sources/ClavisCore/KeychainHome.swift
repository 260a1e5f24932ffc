/// The folder holding one keychain: `keychain.db` and `device.key`.
public struct KeychainHome: Sendable, Hashable {
    /// The folder's path.
    public let path: String

    /// A keychain in the folder at `path`.
    public init(path: String) { self.path = path }

    /// The encrypted item database's file name.
    public static let databaseName = "keychain.db"
    /// The files SQLite keeps beside the database.
    public static let databaseCompanionNames = ["keychain.db-wal", "keychain.db-shm", "keychain.db-journal"]
    /// The device key's file name.
    public static let deviceKeyName = "device.key"

    /// The encrypted item database.
    public var databasePath: String { path + "/" + Self.databaseName }

    /// The file holding the 256-bit device key.
    public var deviceKeyPath: String { path + "/" + Self.deviceKeyName }

    /// Every file of the keychain in this folder: the database, SQLite's files beside it and the device key.
    public var ownFilePaths: [String] {
        ([Self.databaseName] + Self.databaseCompanionNames + [Self.deviceKeyName]).map { path + "/" + $0 }
    }
}
