#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import ClavisCore
import ClavisCrypto
import ClavisSQLite

/// The keychain's state in one process: the open database, the keybag, the class keys that are open and the lock
/// state. Not thread-safe: `Keychain` serialises every call through a mutex.
final class KeychainEngine {
    let connection: Connection
    var keybag: Keybag
    let digests: IndexDigests
    var classKeys: [ProtectionClass: SecureBytes] = [:]
    var lockState: LockState

    /// Opens (or creates) the keychain in `home`; with no passcode set it opens unlocked, else before first unlock.
    init(home: KeychainHome, deviceKeyProvider: any DeviceKeyProvider) throws {
        try PrivateFiles.makeOwnerOnlyFolder(home.path)
        let databaseExisted = (PrivateFiles.size(home.databasePath) ?? 0) > 0
        let deviceKey = try deviceKeyProvider.deviceKey(creatingIfMissing: !databaseExisted)
        let connection = try Connection(path: home.databasePath)
        chmod(home.databasePath, 0o600)
        try Self.checkIsKeychain(connection, path: home.databasePath)
        try connection.enableWriteAheadLogging()
        try connection.executeScript("PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;")
        try Schema.migrator.migrate(connection)
        self.connection = connection
        digests = try IndexDigests(deviceKey: deviceKey)
        keybag = try connection.transaction { try Keybag(connection: connection, deviceKey: deviceKey) }
        do {
            if keybag.hasPasscode {
                classKeys = try keybag.unwrap([.always, .alwaysThisDeviceOnly], passcodeKey: nil, in: connection)
                lockState = .beforeFirstUnlock
            } else {
                classKeys = try keybag.unwrap(ProtectionClass.allCases, passcodeKey: nil, in: connection)
                lockState = .unlocked
            }
        } catch let error as KeychainError where error.code == .authFailed {
            throw KeychainError(.invalidKeychain, "device key \(home.deviceKeyPath) does not belong to this keychain")
        }
    }

    private static func checkIsKeychain(_ connection: Connection, path: String) throws {
        let applicationID = try connection.scalar("PRAGMA application_id")?.integer ?? 0
        if applicationID == Schema.applicationID { return }
        let tables = try connection.scalar("SELECT count(*) FROM sqlite_master")?.integer ?? 0
        guard applicationID == 0, tables == 0 else {
            throw KeychainError(.invalidKeychain, "\(path) is an SQLite database but not a Clavis keychain")
        }
    }

    // MARK: Lock state

    func lock() {
        for protection in ProtectionClass.allCases where protection.closesOnLock {
            classKeys[protection] = nil
        }
        if lockState == .unlocked { lockState = .locked }
    }

    func unlock(passcode: SecureBytes?) throws {
        try keybag.refreshPasscodeState(connection)
        classKeys = try openEveryClass(passcode: passcode)
        lockState = .unlocked
    }

    /// Sets, changes (`newPasscode` non-nil) or removes (`nil`) the passcode after checking `current`.
    ///
    /// Only the class keys are re-wrapped; removal also erases every `WhenPasscodeSetThisDeviceOnly` item.
    func setPasscode(_ newPasscode: SecureBytes?, current: SecureBytes?, kdf: PasscodeKDF?) throws {
        if let newPasscode, newPasscode.isEmpty {
            throw KeychainError(.param, "a passcode cannot be empty; remove it instead")
        }
        let keys = try connection.transaction {
            try keybag.refreshPasscodeState(connection)
            let keys = try openEveryClass(passcode: current)
            if newPasscode == nil {
                try connection.execute(
                    "DELETE FROM items WHERE protection = ?", [.text(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)])
            }
            try keybag.rewrap(
                keys, newPasscode: newPasscode, kdf: kdf ?? keybag.passcodeKDF ?? PasscodeKDF.calibrated(),
                in: connection)
            return keys
        }
        classKeys = keys
        lockState = .unlocked
    }

    private func openEveryClass(passcode: SecureBytes?) throws -> [ProtectionClass: SecureBytes] {
        if keybag.hasPasscode {
            guard let passcode, !passcode.isEmpty else {
                throw KeychainError(.authFailed, "the keychain passcode is required")
            }
            return try keybag.unwrap(ProtectionClass.allCases, passcodeKey: keybag.passcodeKey(for: passcode), in: connection)
        }
        guard passcode == nil || passcode?.isEmpty == true else {
            throw KeychainError(.authFailed, "no passcode is set for this keychain")
        }
        return try keybag.unwrap(ProtectionClass.allCases, passcodeKey: nil, in: connection)
    }

    /// The open key of `protection`, or `interactionNotAllowed` when the lock state keeps it closed.
    func classKey(for protection: ProtectionClass) throws(KeychainError) -> SecureBytes {
        guard let key = classKeys[protection] else {
            throw KeychainError(
                .interactionNotAllowed,
                "protection class \(protection.rawValue) is closed while the keychain is \(lockState.rawValue)")
        }
        return key
    }
}
