public import FoundationEssentials

/// The folder holding one keychain: `keychain.db` and `device.key`.
public struct KeychainHome: Sendable, Hashable {
    /// The folder's path.
    public let path: String

    /// A keychain in the folder at `path`.
    public init(path: String) { self.path = path }

    /// `$CLAVIS_HOME`, else `$XDG_DATA_HOME/clavis`, else `~/.local/share/clavis` (the XDG default).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> KeychainHome
    {
        if let home = environment["CLAVIS_HOME"], !home.isEmpty {
            return KeychainHome(path: home)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return KeychainHome(path: data + "/clavis")
        }
        let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        return KeychainHome(path: userHome + "/.local/share/clavis")
    }

    /// The encrypted item database's file name.
    static let databaseName = "keychain.db"
    /// The files SQLite keeps beside the database.
    static let databaseCompanionNames = ["keychain.db-wal", "keychain.db-shm", "keychain.db-journal"]
    /// The device key's file name.
    static let deviceKeyName = "device.key"

    /// The encrypted item database.
    public var databasePath: String { path + "/" + Self.databaseName }

    /// The file holding the 256-bit device key.
    public var deviceKeyPath: String { path + "/" + Self.deviceKeyName }

    /// Every file of the keychain in this folder: the database, SQLite's files beside it and the device key.
    public var ownFilePaths: [String] {
        ([Self.databaseName] + Self.databaseCompanionNames + [Self.deviceKeyName]).map { path + "/" + $0 }
    }
}
