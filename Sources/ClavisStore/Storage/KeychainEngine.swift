import ClavisCore
import ClavisCrypto
import ClavisSQLite
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The keychain's state in one process: the open database, the keybag, the class keys that are open and the lock
/// state. Not thread-safe: `Keychain` serialises every call through a mutex.
final class KeychainEngine {
    let connection: Connection
    var keybag: Keybag
    let digests: IndexDigests
    var classKeys: [ProtectionClass: SecureBytes] = [:]
    var lockState: LockState
    /// The KDF calibrated for this machine, once one was needed while no passcode KDF is recorded.
    private var calibratedKDF: PasscodeKDF?

    /// Opens (or creates) the keychain in `home`; with no passcode set it opens unlocked, else before first unlock.
    init(home: KeychainHome, deviceKeyProvider: any DeviceKeyProvider) throws {
        try PrivateFiles.makeOwnerOnlyFolder(home.path)
        let databaseExisted = (PrivateFiles.size(home.databasePath) ?? 0) > 0
        let deviceKey = try deviceKeyProvider.deviceKey(creatingIfMissing: !databaseExisted)
        try PrivateFiles.makeOwnerOnlyFile(home.databasePath)
        let connection = try Connection(path: home.databasePath)
        try Self.checkIsKeychain(connection, path: home.databasePath)
        try connection.enableWriteAheadLogging()
        // A short write-ahead log: each process that opens the keychain after another exited replays the log, so
        // checkpoint often and truncate it back to at most 1 MiB.
        try connection.executeScript(
            "PRAGMA synchronous = FULL; PRAGMA secure_delete = ON; PRAGMA wal_autocheckpoint = 100; PRAGMA journal_size_limit = 1048576;"
        )
        try Schema.migrator.migrate(connection)
        try Self.foldOversizedLog(connection, path: home.databasePath + "-wal")
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

    /// A process that exits without closing the database leaves its log behind, and the next one cannot tell how
    /// much of it was already copied back, so the log only grows. Past 4 MiB, fold it back and truncate it.
    private static func foldOversizedLog(_ connection: Connection, path: String) throws {
        guard let size = PrivateFiles.size(path), size > 4 * 1024 * 1024 else { return }
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

    // MARK: Lock state

    func lock() {
        for protection in ProtectionClass.allCases where protection.closesOnLock {
            classKeys[protection] = nil
        }
        if lockState == .unlocked { lockState = .locked }
    }

    func unlock(passcode: SecureBytes?) throws {
        try keybag.refreshPasscodeState(connection)
        classKeys = try countingPasscodeAttempts { try openEveryClass(passcode: passcode) }
        lockState = .unlocked
    }

    /// Checks the passcode without changing the lock state (for user-presence checks).
    ///
    /// - Throws: `notAvailable` when no passcode is set, `authFailed` when it is wrong or attempts are locked out.
    func verifyPasscode(_ passcode: SecureBytes) throws {
        try keybag.refreshPasscodeState(connection)
        guard keybag.hasPasscode else { throw KeychainError(.notAvailable, "no passcode is set for this keychain") }
        _ = try countingPasscodeAttempts {
            try keybag.unwrap([.whenUnlocked], passcodeKey: keybag.passcodeKey(for: passcode), in: connection)
        }
    }

    /// When passcode attempts are allowed again, or `nil` when they are now.
    func passcodeLockout() throws -> Date? {
        try PasscodeAttempts.lockedUntil(connection)
    }

    /// Runs a passcode check, refusing it during a lockout and counting a wrong passcode toward the next one.
    ///
    /// The attempt is counted as a failure before the check runs, in one transaction with the lockout test, so
    /// guesses made by many processes at once cannot all slip in before the count catches up; a right passcode
    /// then clears the count.
    private func countingPasscodeAttempts<Result>(_ check: () throws -> Result) throws -> Result {
        guard keybag.hasPasscode else { return try check() }
        try connection.transaction {
            if let until = try PasscodeAttempts.lockedUntil(connection) {
                throw KeychainError(
                    .authFailed,
                    "passcode attempts are locked out for \(Int(until.timeIntervalSinceNow.rounded(.up))) s")
            }
            try PasscodeAttempts.recordFailure(connection)
        }
        let result = try check()
        try PasscodeAttempts.recordSuccess(connection)
        return result
    }

    /// Sets, changes (`newPasscode` non-nil) or removes (`nil`) the passcode after checking `current`.
    ///
    /// Only the class keys are re-wrapped; removal also erases every `WhenPasscodeSetThisDeviceOnly` item.
    func setPasscode(_ newPasscode: SecureBytes?, current: SecureBytes?, kdf: PasscodeKDF?) throws {
        if let newPasscode, newPasscode.isEmpty {
            throw KeychainError(.param, "a passcode cannot be empty; remove it instead")
        }
        if let newPasscode, newPasscode.count > KeychainLimits.passcodeBytes {
            throw KeychainError(.param, "a passcode is at most \(KeychainLimits.passcodeBytes) bytes")
        }
        try keybag.refreshPasscodeState(connection)
        let (keys, rewrapped) = try countingPasscodeAttempts {
            try connection.transaction {
                try keybag.refreshPasscodeState(connection)
                let keys = try openEveryClass(passcode: current)
                if newPasscode == nil {
                    try connection.execute(
                        "DELETE FROM items WHERE protection = ?",
                        [.text(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)])
                }
                // Re-wrap a copy: the engine's keybag changes only once the transaction has committed.
                var rewrapped = keybag
                try rewrapped.rewrap(keys, newPasscode: newPasscode, kdf: kdf ?? freshKDF(), in: connection)
                return (keys, rewrapped)
            }
        }
        keybag = rewrapped
        classKeys = keys
        lockState = .unlocked
    }

    /// The recorded KDF's cost with a new salt, or one calibrated on this machine (once per process) when none is
    /// recorded.
    func freshKDF() -> PasscodeKDF {
        var kdf = keybag.passcodeKDF ?? calibratedKDF ?? PasscodeKDF.calibrated()
        if keybag.passcodeKDF == nil { calibratedKDF = kdf }
        kdf.salt = SecureRandom.bytes(count: PasscodeKDF.saltByteCount)
        return kdf
    }

    private func openEveryClass(passcode: SecureBytes?) throws -> [ProtectionClass: SecureBytes] {
        if keybag.hasPasscode {
            guard let passcode, !passcode.isEmpty else {
                throw KeychainError(.authFailed, "the keychain passcode is required")
            }
            return try keybag.unwrap(
                ProtectionClass.allCases, passcodeKey: keybag.passcodeKey(for: passcode), in: connection)
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
