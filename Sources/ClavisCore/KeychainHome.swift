/// The folder holding one keychain: `keychain.db` and its device key, `device.key` or (sealed to a TPM) `device.tpm`.
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
    /// The file name of the device key sealed to a TPM, which replaces `device.key`.
    public static let sealedDeviceKeyName = "device.tpm"

    /// The encrypted item database.
    public var databasePath: String { path + "/" + Self.databaseName }

    /// The file holding the 256-bit device key.
    public var deviceKeyPath: String { path + "/" + Self.deviceKeyName }

    /// The file holding the device key sealed to a TPM.
    public var sealedDeviceKeyPath: String { path + "/" + Self.sealedDeviceKeyName }

    /// Every file of the keychain in this folder: the database, SQLite's files beside it and the device key (in a
    /// file or sealed).
    public var ownFilePaths: [String] {
        ([Self.databaseName] + Self.databaseCompanionNames + [Self.deviceKeyName, Self.sealedDeviceKeyName]).map {
            path + "/" + $0
        }
    }
}
