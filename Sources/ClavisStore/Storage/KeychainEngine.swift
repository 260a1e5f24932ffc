internal import ClavisCore
internal import ClavisCrypto
internal import ClavisSQLite
internal import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The keychain's state in one process: the open database, the keybag, the class keys that are open and the lock
/// state. Not thread-safe: `Keychain` serialises every call through a mutex.
final class KeychainEngine {
    private(set) var connection: Connection
    var keybag: Keybag
    let digests: IndexDigests
    /// The open class keys. Any change (a lock, an unlock, a new passcode) drops every kept keyed class key and the
    /// sealer's last item key, whose key schedules are zeroed as they are freed.
    var classKeys: [ProtectionClass: SecureBytes] = [:] {
        didSet {
            keyedClassKeys.removeAll()
            sealer.forgetKeys()
            classKeysGeneration &+= 1
        }
    }
    /// Counts the changes of `classKeys`, so that the readers beside this engine (`ReaderPool`) follow each.
    private(set) var classKeysGeneration = 0
    /// For a reader (`init(readingBeside:)`): the `classKeysGeneration` of the engine whose class keys it holds.
    var followedGeneration = 0
    /// The open class keys kept keyed for deriving and unwrapping item keys, made on first use.
    private var keyedClassKeys: [ProtectionClass: ClassKey] = [:]
    /// Seals and opens items, reusing its cipher contexts.
    let sealer = ItemSealer()
    /// The text of each shape of primary-key lookup, built once.
    var primaryKeySelections: [Int: String] = [:]
    var lockState: LockState
    /// Why the keychain was opened read-only (a full or read-only file system), or `nil` when it can be written.
    private(set) var writeRefusal: KeychainError?
    /// The open keychain folder, through which the database is opened again for writing once it can be.
    private let folder: KeychainFolder
    let home: KeychainHome
    /// Whether reads go through a memory map of the database (see `configureReads`).
    private let mapsDatabase: Bool
    /// The TPM's anti-rollback counter, for a keychain bound to a TPM.
    private(set) var rollbackCounter: RollbackCounter?
    /// True while a `changingKeybag` call runs, so that one nested in it (a passcode change inside its passcode
    /// check) folds nothing twice.
    var isChangingKeybag = false
    /// The KDF calibrated for this machine, once one was needed while no passcode KDF is recorded.
    private var calibratedKDF: PasscodeKDF?
    /// Where the passcode lockout reads the time.
    private let clock: KeychainClock
    /// The read transaction kept open for a moment after an item read (`ReadPin`); `nil` for a keychain opened
    /// read-only or without pins, whose reads take their locks as before.
    private(set) var readPin: ReadPin?
    /// How long a read pin is kept; 0 keeps none.
    private let readPinMilliseconds: Int

    /// Opens (or creates) the keychain in `home`; with no passcode set it opens unlocked, else before first unlock.
    /// `readPinMilliseconds`: how long a read pin is kept (`ReadPin`); 0 keeps none.
    init(
        home: KeychainHome, deviceKeyProvider: any DeviceKeyProvider, mapsDatabase: Bool = true,
        clock: KeychainClock = .system, readPinMilliseconds: Int = ReadPin.defaultIdleMilliseconds
    ) throws {
        let folder = try KeychainFolder(home.path)
        for name in [KeychainHome.databaseName] + KeychainHome.databaseCompanionNames {
            try folder.checkFileIfPresent(name)
        }
        let databaseExisted = (folder.size(of: KeychainHome.databaseName) ?? 0) > 0
        let deviceKey = try deviceKeyProvider.deviceKey(creatingIfMissing: !databaseExisted)
        try folder.ensureFile(KeychainHome.databaseName)
        let (connection, writeRefusal) = try Self.openDatabase(in: folder, home: home, mapsDatabase: mapsDatabase)
        self.folder = folder
        self.clock = clock
        self.home = home
        self.mapsDatabase = mapsDatabase
        self.readPinMilliseconds = readPinMilliseconds
        self.connection = connection
        digests = try IndexDigests(deviceKey: deviceKey)
        self.writeRefusal = writeRefusal
        keybag = try connection.transaction(immediate: writeRefusal == nil) {
            try Keybag(connection: connection, deviceKey: deviceKey)
        }
        do {
            if keybag.hasPasscode {
                classKeys = try keybag.unwrap([.always, .alwaysThisDeviceOnly], passcodeKey: nil, in: connection)
                lockState = .beforeFirstUnlock
            } else {
                classKeys = try keybag.unwrap(ProtectionClass.allCases, passcodeKey: nil, in: connection)
                lockState = .unlocked
            }
        } catch let error as KeychainError where error.code == .authFailed {
            let path = deviceKeyProvider.binding == .tpm ? home.sealedDeviceKeyPath : home.deviceKeyPath
            throw KeychainError(.invalidKeychain, "device key \(path) does not belong to this keychain")
        }
        openReadPin()
        if let sealed = deviceKeyProvider as? TPMDeviceKey {
            rollbackCounter = try RollbackCounter(
                connection: connection, tcti: sealed.tcti, deviceKey: deviceKey, writable: writeRefusal == nil)
        }
    }

    /// An engine beside `primary`, on a connection of its own to the same file, that serves item reads in parallel
    /// with `primary` and the other readers (`ReaderPool`): it shares `primary`'s keybag and index key, and its class
    /// keys are those `primary` had open when it was made, then as `ReaderPool.publish` hands them on. It never
    /// writes (`query_only`).
    ///
    /// - Throws: `io` when the file cannot be opened again, or is no longer the file `primary` opened.
    init(readingBeside primary: KeychainEngine, cacheKiB: Int) throws {
        let path = try primary.folder.resolvedPath() + "/" + KeychainHome.databaseName
        guard let held = primary.connection.databaseFileIdentity else {
            throw KeychainError(.io, "\(path) cannot be named as the keychain.db this keychain opened")
        }
        connection = try Connection.queryOnly(
            path: path, sameFileAs: held, busyTimeoutMilliseconds: 10_000,
            settings: KeychainDatabaseSettings.reads(mapsDatabase: primary.mapsDatabase, cacheKiB: cacheKiB))
        folder = primary.folder
        home = primary.home
        mapsDatabase = primary.mapsDatabase
        clock = primary.clock
        readPinMilliseconds = 0
        keybag = primary.keybag
        digests = primary.digests
        writeRefusal = KeychainError(.io, "a reader of the keychain in \(home.path) does not write")
        lockState = primary.lockState
        classKeys = primary.classKeys
        followedGeneration = primary.classKeysGeneration
    }

    /// Before a write on a keychain that was opened read-only: opens the database again, for writing when that
    /// works now (room was made, the file system was remounted writable), else read-only as before with the reason.
    ///
    /// SQLite shares one shared-memory index per file among a process's connections, and the read-only one's would
    /// make the new connection read-only as well: it is closed first (an empty in-memory database stands in).
    func reopenForWritingIfRefused() throws {
        guard writeRefusal != nil else { return }
        connection = try Connection(path: ":memory:")
        (connection, writeRefusal) = try Self.openDatabase(in: folder, home: home, mapsDatabase: mapsDatabase)
        openReadPin()
    }

    /// Makes the read pin of the database `connection` opened, kept `readPinMilliseconds` after each read that takes
    /// it; none for a keychain opened read-only, or when the file cannot be named again (a pin is never worth failing
    /// an open for).
    private func openReadPin() {
        guard writeRefusal == nil, readPinMilliseconds > 0, let path = try? folder.resolvedPath(),
            let databaseFile = connection.databaseFileIdentity
        else {
            readPin = nil
            return
        }
        let folder = folder
        readPin = ReadPin(
            path: path + "/" + KeychainHome.databaseName, databaseFile: databaseFile,
            idleMilliseconds: readPinMilliseconds
        ) { folder.size(of: KeychainHome.databaseName + "-wal") }
    }

    // MARK: Lock state

    func lock() {
        for protection in ProtectionClass.allCases where protection.closesOnLock {
            classKeys[protection] = nil
        }
        if lockState == .unlocked { lockState = .locked }
    }

    /// A passcode key derived ahead of a check, outside the engine's lock, with the KDF it was derived under.
    struct DerivedPasscodeKey {
        var kdf: PasscodeKDF
        var key: SecureBytes
    }

    /// The KDF a passcode is derived under now; `nil` when no passcode is set.
    func currentPasscodeKDF() throws -> PasscodeKDF? {
        try keybag.refreshPasscodeState(connection)
        return keybag.hasPasscode ? keybag.passcodeKDF : nil
    }

    func unlock(passcode: SecureBytes?, derived: DerivedPasscodeKey? = nil) throws {
        try keybag.refreshPasscodeState(connection)
        if !keybag.hasPasscode, let passcode, !passcode.isEmpty {
            throw KeychainError(.authFailed, "no passcode is set for this keychain")
        }
        classKeys = try countingPasscodeAttempts(passcode, derived: derived) { passcodeKey in
            try openEveryClass(passcodeKey)
        }
        lockState = .unlocked
    }

    /// Checks the passcode without changing the lock state (for user-presence checks).
    ///
    /// - Throws: `notAvailable` when no passcode is set, `authFailed` when it is wrong or attempts are locked out.
    func verifyPasscode(_ passcode: SecureBytes, derived: DerivedPasscodeKey? = nil) throws {
        try keybag.refreshPasscodeState(connection)
        guard keybag.hasPasscode else { throw KeychainError(.notAvailable, "no passcode is set for this keychain") }
        _ = try countingPasscodeAttempts(passcode, derived: derived) { passcodeKey in
            try keybag.unwrap([.whenUnlocked], passcodeKey: passcodeKey, in: connection)
        }
    }

    /// When passcode attempts are allowed again, or `nil` when they are now.
    func passcodeLockout() throws -> Date? {
        try PasscodeAttempts.lockedUntil(connection, now: clock.date)
    }

    /// Runs a passcode check, refusing it during a lockout and counting a wrong passcode toward the next one.
    ///
    /// The passcode key is derived first, outside any transaction: that is the slow part, and processes checking
    /// at once must not queue behind it. `Keychain` derives it before taking the engine's lock (`derived`), so that
    /// the other threads of a process (a daemon's other clients) do not wait either; it is derived here only when
    /// none was given or the KDF changed since. Then, in one write transaction, the lockout is tested, the attempt is
    /// counted as a failure and `check` runs with the key (a few key unwraps); a right passcode clears the count
    /// before the transaction commits, a wrong one commits its failure. Attempts from many processes are thereby
    /// serialised: a wrong one is always counted before its answer is known, and a right one never counts toward a
    /// lockout, however many arrive together. `check` gets `nil` when no passcode is set. While one is set, a
    /// missing or empty passcode is `authFailed` at once, uncounted.
    private func countingPasscodeAttempts<Result>(
        _ passcode: SecureBytes?, derived: DerivedPasscodeKey?, _ check: (SecureBytes?) throws -> Result
    ) throws -> Result {
        guard keybag.hasPasscode else { return try check(nil) }
        // Nothing was typed: refused alike in unlock, verify and set, and not counted as an attempt.
        guard let passcode, !passcode.isEmpty else {
            throw KeychainError(.authFailed, "the keychain passcode is required")
        }
        var derivedWith = keybag.passcodeKDF
        var passcodeKey =
            if let derived, derived.kdf == keybag.passcodeKDF { derived.key } else { try derivePasscodeKey(passcode) }
        // The attempt count is part of the keybag's code in a TPM-bound keychain's state digest.
        let outcome: Swift.Result<Result, KeychainError> = try changingKeybag {
            try keybag.refreshPasscodeState(connection)
            guard keybag.hasPasscode else { return .success(try check(nil)) }
            if keybag.passcodeKDF != derivedWith {
                // Another process changed the passcode meanwhile: derive again under its KDF.
                derivedWith = keybag.passcodeKDF
                passcodeKey = try derivePasscodeKey(passcode)
            }
            let now = clock.date
            if let until = try PasscodeAttempts.lockedUntil(connection, now: now) {
                throw KeychainError.passcodeLockout(until: until, now: now)
            }
            try PasscodeAttempts.recordFailure(connection, now: now)
            do {
                let result = try check(passcodeKey)
                try PasscodeAttempts.recordSuccess(connection)
                return .success(result)
            } catch let error as KeychainError where error.code == .authFailed {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// The passcode key of `passcode` under the recorded KDF; `nil` when no passcode is set.
    private func derivePasscodeKey(_ passcode: SecureBytes) throws -> SecureBytes? {
        guard keybag.hasPasscode else { return nil }
        return try keybag.passcodeKey(for: passcode)
    }

    /// Sets, changes (`newPasscode` non-nil) or removes (`nil`) the passcode after checking `current`.
    ///
    /// Only the class keys are re-wrapped; removal also erases every `WhenPasscodeSetThisDeviceOnly` item and
    /// replaces that class's key.
    /// `derivedCurrent` and `derivedNew` are the two passcodes' keys when `Keychain` derived them outside the lock.
    func setPasscode(
        _ newPasscode: SecureBytes?, current: SecureBytes?, kdf: PasscodeKDF?,
        derivedCurrent: DerivedPasscodeKey? = nil, derivedNew: DerivedPasscodeKey? = nil
    ) throws {
        if let newPasscode, newPasscode.isEmpty {
            throw KeychainError(.param, "a passcode cannot be empty; remove it instead")
        }
        if let newPasscode, newPasscode.count > KeychainLimits.passcodeBytes {
            throw KeychainError(.param, "a passcode is at most \(KeychainLimits.passcodeBytes) bytes")
        }
        try keybag.refreshPasscodeState(connection)
        if !keybag.hasPasscode, let current, !current.isEmpty {
            throw KeychainError(.authFailed, "no passcode is set for this keychain")
        }
        let (keys, rewrapped) = try countingPasscodeAttempts(current, derived: derivedCurrent) { currentKey in
            try connection.transaction {
                var keys = try openEveryClass(currentKey)
                if newPasscode == nil {
                    try deleteItemRows(
                        where: "protection = ?", [.text(ProtectionClass.whenPasscodeSetThisDeviceOnly.rawValue)])
                    // A new key for the class, so that nothing sealed under the old one (a box held outside the
                    // items: `Keychain.sealOutsideItems`) opens again, as Apple's keys of the class die with the
                    // passcode.
                    keys[.whenPasscodeSetThisDeviceOnly] = SecureRandom.secureBytes(count: AESGCM.keyByteCount)
                }
                // Re-wrap a copy: the engine's keybag changes only once the transaction has committed.
                var rewrapped = keybag
                try changingKeybag {
                    try rewrapped.rewrap(
                        keys, newPasscode: newPasscode, kdf: derivedNew?.kdf ?? kdf ?? freshKDF(),
                        derivedKey: derivedNew?.key, in: connection)
                }
                return (keys, rewrapped)
            }
        }
        keybag = rewrapped
        classKeys = keys
        lockState = .unlocked
    }

    /// The KDF a new passcode would be derived under without calibrating: the recorded one, or the one calibrated
    /// earlier in this process; `nil` when neither exists.
    func knownKDF() throws -> PasscodeKDF? {
        try keybag.refreshPasscodeState(connection)
        return keybag.passcodeKDF ?? calibratedKDF
    }

    /// The recorded KDF's cost with a new salt, or one calibrated on this machine (once per process) when none is
    /// recorded.
    func freshKDF() -> PasscodeKDF {
        var kdf = keybag.passcodeKDF ?? calibratedKDF ?? PasscodeKDF.calibrated()
        if keybag.passcodeKDF == nil { calibratedKDF = kdf }
        kdf.salt = SecureRandom.bytes(count: PasscodeKDF.saltByteCount)
        return kdf
    }

    /// Unwraps every class key with `passcodeKey`, which must be given while a passcode is set.
    private func openEveryClass(_ passcodeKey: SecureBytes?) throws -> [ProtectionClass: SecureBytes] {
        if keybag.hasPasscode, passcodeKey == nil {
            throw KeychainError(.authFailed, "the keychain passcode is required")
        }
        return try keybag.unwrap(ProtectionClass.allCases, passcodeKey: passcodeKey, in: connection)
    }

    /// The open key of `protection`, or `nil` while the lock state keeps it closed: not a failure, since an unlock
    /// opens it, so an item call answers `.needsUnlock`.
    func openClassKey(for protection: ProtectionClass) throws(KeychainError) -> ClassKey? {
        if let kept = keyedClassKeys[protection] { return kept }
        guard let key = classKeys[protection] else { return nil }
        let kept: ClassKey
        do {
            kept = try ClassKey(key)
        } catch {
            throw KeychainError(.invalidKeychain, "class key \(protection.rawValue) is not a 256-bit key")
        }
        keyedClassKeys[protection] = kept
        return kept
    }
}
