package import ClavisCore
package import ClavisCrypto
internal import ClavisSQLite
import Dispatch
package import FoundationEssentials
internal import Synchronization

/// The keychain engine: an encrypted SQLite item store with a keybag, protection classes and a lock state.
///
/// Every item has its own key, derived from (older rows: wrapped by) its class key; class keys are wrapped by the
/// device key and the passcode.
/// One instance per process and home, for any thread. Item writes that arrive together share one transaction and
/// its disk flush (`GroupCommit`), each keeping its own outcome; every other call runs alone under the engine's lock,
/// item reads too unless the keychain was opened with `readers` (a daemon), which then run in parallel on their own
/// connections (`ReaderPool`). Several processes may open the same home at once (SQLite WAL; writers queue).
///
/// Item calls answer rather than throw when the caller must do something first (`ServiceAnswer`): `.needsUnlock`
/// for an item in a closed protection class, `.needsAuthentication` for an access control the query's proof does
/// not satisfy or an application password to seal a new secret with. A thrown error means the call failed. A
/// caller that cannot ask anyone turns such an answer into `interactionNotAllowed` with `resultOrThrow()`.
package final class Keychain: Sendable {
    /// The folder holding this keychain's files.
    package let home: KeychainHome
    /// A stable identity of this keychain (not secret), which binds passcode proofs to the keychain that checked them.
    /// It depends only on the keybag's salt, which never changes once the keychain exists: kept from the opening, so
    /// that reading it (the daemon does, on every request) waits for no other thread's call.
    package let identity: Data
    /// What the device key is bound to: a file, or a TPM.
    package let deviceKeyBinding: DeviceKeyBinding
    /// The TCTI of the TPM the device key is sealed to, or `nil` for a keychain bound to a file: where the keys the
    /// service holds for this keychain (`kSecAttrTokenIDSecureEnclave`) are created and used.
    package let tpmTCTI: String?
    /// Where the passcode lockout reads the time.
    package let clock: KeychainClock
    let engine: Mutex<KeychainEngine>
    /// The engines that serve item reads beside `engine`, or `nil` when `engine` serves them.
    let readers: ReaderPool?
    /// The item writes waiting to share a commit.
    let groupCommit = GroupCommit()
    /// The item writes this instance committed, and the flushes they took.
    let committed = Mutex(WriteStatistics())

    /// Opens the keychain in `home`, creating it (and its device key) on first use.
    ///
    /// An existing keychain's device key is the one its folder holds: `device.tpm`, unsealed by the TPM that
    /// `deviceKeyOptions.tcti` reaches, or `device.key`. A new keychain's is bound as `deviceKeyOptions` asks.
    /// - Throws: `invalidKeychain` for a damaged or foreign `keychain.db`, a missing, malformed or foreign device
    ///   key, or a sealed one this TPM cannot unseal (another TPM sealed it, or its PCRs changed; the reason says
    ///   which); `notAvailable` when the TPM cannot be reached; `io` when the files cannot be reached.
    /// - Parameter mapsDatabase: read through a memory map of the database (the default, fastest); `false` keeps
    ///   the process's resident memory within SQLite's page cache, as a long-running daemon wants.
    /// - Parameter clock: where the passcode lockout reads the time.
    /// - Parameter readers: how many connections serve item reads in parallel beside the one that writes (a daemon
    ///   serving many clients: `Keychain.daemonReaders`); 0, the default, reads on that one connection.
    package convenience init(
        home: KeychainHome, deviceKeyOptions: DeviceKeyOptions = .file, mapsDatabase: Bool = true,
        clock: KeychainClock = .system, readers: Int = 0
    ) throws(KeychainError) {
        let (provider, _) = try DeviceKeySelection.provider(for: home, options: deviceKeyOptions)
        try self.init(
            home: home, deviceKeyProvider: provider, mapsDatabase: mapsDatabase, clock: clock,
            readPinMilliseconds: ReadPin.defaultIdleMilliseconds, readers: readers)
    }

    /// How many readers a daemon's keychains keep: one per processor, at least two and at most four.
    package static var daemonReaders: Int { ReaderPool.defaultCount }

    /// Opens the keychain in `home` with the device key held by `deviceKeyProvider`, reading the time from `clock`.
    package convenience init(
        home: KeychainHome, deviceKeyProvider: any DeviceKeyProvider, mapsDatabase: Bool = true,
        clock: KeychainClock = .system
    ) throws(KeychainError) {
        try self.init(
            home: home, deviceKeyProvider: deviceKeyProvider, mapsDatabase: mapsDatabase, clock: clock,
            readPinMilliseconds: ReadPin.defaultIdleMilliseconds)
    }

    /// Opens the keychain in `home` as above, keeping each read pin (`ReadPin`) `readPinMilliseconds`: tests hold
    /// one as long as they look at it.
    init(
        home: KeychainHome, deviceKeyProvider: any DeviceKeyProvider, mapsDatabase: Bool = true,
        clock: KeychainClock = .system, readPinMilliseconds: Int, readers: Int = 0
    ) throws(KeychainError) {
        self.home = home
        deviceKeyBinding = deviceKeyProvider.binding
        tpmTCTI = (deviceKeyProvider as? TPMDeviceKey)?.tcti
        self.clock = clock
        do {
            let opened = try KeychainEngine(
                home: home, deviceKeyProvider: deviceKeyProvider, mapsDatabase: mapsDatabase, clock: clock,
                readPinMilliseconds: readPinMilliseconds)
            identity = opened.keybag.identity
            // A keychain opened read-only (a full disk) reads on its one connection.
            self.readers =
                readers > 0 && opened.writeRefusal == nil ? try ReaderPool(beside: opened, count: readers) : nil
            if self.readers != nil { try opened.connection.executeScript(KeychainDatabaseSettings.serving) }
            engine = Mutex(opened)
        } catch {
            throw KeychainError(converting: error)
        }
    }

    /// The item writes committed through this instance since it was opened, and the disk flushes they took.
    package var writeStatistics: WriteStatistics { committed.withLock { $0 } }

    /// The lock state as this process sees it.
    package var lockState: LockState { engine.withLock { $0.lockState } }

    /// True while the keychain has a passcode.
    package var hasPasscode: Bool { engine.withLock { $0.keybag.hasPasscode } }

    /// Locks the keychain: the `WhenUnlocked` class keys are zeroed and dropped; `AfterFirstUnlock` ones stay.
    package func lock() {
        engine.withLock { engine in
            engine.lock()
            readers?.publish(from: engine)
            // A read that had a reader before the lock decrypts with the keys it had: it ends before this returns.
            readers?.waitForReadsInProgress()
        }
    }

    /// Unlocks with the passcode (`nil` when none is set).
    ///
    /// - Throws: `authFailed` for a wrong or missing passcode; nothing is unlocked then.
    package func unlock(passcode: SecureBytes?) throws(KeychainError) {
        let derived = try deriveOutsideTheLock(passcode)
        try perform(writing: true) { try $0.unlock(passcode: passcode, derived: derived) }
    }

    /// Checks the passcode without changing the lock state: the passcode step of a user-presence check.
    ///
    /// Wrong passcodes are counted in the keychain (every process shares the count): after 5 in a row, attempts are
    /// refused for 1 minute, then 5, 15 and 60 minutes after each further failure.
    /// - Throws: `authFailed` when the passcode is wrong or attempts are locked out, `notAvailable` when no passcode
    ///   is set.
    package func verifyPasscode(_ passcode: SecureBytes) throws(KeychainError) {
        let derived = try deriveOutsideTheLock(passcode)
        try perform(writing: true) { try $0.verifyPasscode(passcode, derived: derived) }
    }

    /// The passcode key of `passcode`, derived (about 100 ms) without holding the engine's lock, so that other
    /// threads' calls go on meanwhile; `nil` when there is nothing to derive.
    private func deriveOutsideTheLock(_ passcode: SecureBytes?) throws(KeychainError)
        -> KeychainEngine.DerivedPasscodeKey?
    {
        guard let passcode, !passcode.isEmpty, let kdf = try perform({ try $0.currentPasscodeKDF() }) else {
            return nil
        }
        do {
            return KeychainEngine.DerivedPasscodeKey(kdf: kdf, key: try Keybag.derive(passcode, with: kdf))
        } catch {
            throw KeychainError(converting: error)
        }
    }

    /// When passcode attempts are allowed again after too many wrong ones; `nil` when they are allowed now.
    package var passcodeLockout: Date? {
        get throws(KeychainError) { try perform { try $0.passcodeLockout() } }
    }

    /// Sets, changes or (with `newPasscode` nil) removes the passcode, after checking `current`.
    ///
    /// Only the seven class keys are re-wrapped, so the cost does not grow with the number of items. Removing the
    /// passcode erases every `WhenPasscodeSetThisDeviceOnly` item. The keychain is unlocked afterwards.
    /// - Parameter kdf: the passcode KDF to record; by default the one already recorded, or scrypt calibrated to
    ///   about 100 ms on this machine. Tests may pass `PasscodeKDF.cheapForTesting()`.
    /// - Throws: `authFailed` when `current` is wrong, `param` for an empty new passcode.
    package func setPasscode(_ newPasscode: SecureBytes?, current: SecureBytes?, kdf: PasscodeKDF? = nil)
        throws(KeychainError)
    {
        // Both derivations (about 100 ms each) run before the engine's lock is taken, as an unlock's does; the
        // engine derives again only if another process changed the passcode meanwhile.
        let derivedCurrent = try deriveOutsideTheLock(current)
        var derivedNew: KeychainEngine.DerivedPasscodeKey?
        if let newPasscode, !newPasscode.isEmpty, newPasscode.count <= KeychainLimits.passcodeBytes {
            var newKDF: PasscodeKDF
            if let kdf {
                newKDF = kdf
            } else {
                newKDF = try perform { try $0.knownKDF() } ?? PasscodeKDF.calibrated()
                newKDF.salt = SecureRandom.bytes(count: PasscodeKDF.saltByteCount)
            }
            do {
                derivedNew = KeychainEngine.DerivedPasscodeKey(
                    kdf: newKDF, key: try Keybag.derive(newPasscode, with: newKDF))
            } catch {
                throw KeychainError(converting: error)
            }
        }
        try perform(writing: true) {
            try $0.setPasscode(
                newPasscode, current: current, kdf: kdf, derivedCurrent: derivedCurrent, derivedNew: derivedNew)
        }
    }

    /// Stores a new item, or answers what it needs first (its class opened, an application password to seal it).
    package func add(_ item: NewItem) throws(KeychainError) -> ServiceAnswer<Item> {
        try add(contentsOf: [item]).map { $0[0] }
    }

    /// Stores several items in one transaction: all of them, or none when one fails or needs something first.
    package func add(contentsOf items: [NewItem]) throws(KeychainError) -> ServiceAnswer<[Item]> {
        let derives = items.contains { $0.authentication?.applicationPassword != nil }
        return try write(alone: derives) { try $0.add(items) }
    }

    /// The items matching `query`, in insertion order, at most `query.limit`; or what reading them needs first.
    package func find(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<[Item]> {
        try readingItems { try $0.find(query) }
    }

    /// The persistent references of the items matching `query` that the lock state keeps closed, found by their
    /// lookup digests without decrypting anything (`KeychainEngine.lockedReferences`); empty while every class is
    /// open.
    ///
    /// - Throws: `param` for a query naming an attribute that only the sealed attributes hold.
    package func lockedReferences(_ query: ItemQuery) throws(KeychainError) -> [PersistentReference] {
        try readingItems { try $0.lockedReferences(query) }
    }

    /// Applies `changes` to every item matching `query` (one transaction) and answers how many changed; or what
    /// one of them needs first, changing none.
    package func update(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError) -> ServiceAnswer<Int> {
        try updateNamingItems(query, with: changes).map(\.count)
    }

    /// `update`, answering the persistent references of the items changed.
    package func updateNamingItems(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError)
        -> ServiceAnswer<[PersistentReference]>
    {
        try write(alone: query.authentication?.applicationPassword != nil) { try $0.update(query, with: changes) }
    }

    /// Deletes every item matching `query` (one transaction) and answers how many were deleted; or what one of them
    /// needs first, deleting none.
    package func delete(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<Int> {
        try deleteNamingItems(query).map(\.count)
    }

    /// `delete`, answering the persistent references of the items deleted.
    package func deleteNamingItems(_ query: ItemQuery) throws(KeychainError) -> ServiceAnswer<[PersistentReference]> {
        try write(alone: query.authentication?.applicationPassword != nil) { try $0.delete(query) }
    }

    /// Deletes every item of `groups` without reading any (whatever their protection class, lock state or access
    /// control): the items of an app removed for good. How many were deleted.
    package func deleteAccessGroups(_ groups: [String]) throws(KeychainError) -> Int {
        try perform(writing: true) { try $0.deleteAccessGroups(groups) }
    }

    /// SQLite's query plan for the lookup `query` runs: a diagnostic showing which index serves it.
    package func explain(_ query: ItemQuery) throws(KeychainError) -> [String] {
        try perform { try $0.explain(query) }
    }

    /// Gives the read pin back `milliseconds` from now (`ReadPin`), unless the keychain is gone by then.
    private func scheduleReadPinGiveBack(after milliseconds: Int) {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
            [weak self] in
            self?.engine.withLock { $0.readPin?.giveBack() }
        }
    }

    /// Runs an item read on one of the `readers`, or, without them, on the engine under its lock (`perform`).
    private func readingItems<Result: Sendable>(_ body: (KeychainEngine) throws -> Result) throws(KeychainError)
        -> Result
    {
        guard let readers else { return try perform(readsItems: true, body) }
        do {
            return try readers.read(body)
        } catch {
            throw KeychainError(converting: error)
        }
    }

    /// Runs `body` on the engine under its lock. A call that is `writing` first reopens a keychain that was opened
    /// read-only (it may be writable now) and gives the read pin back (`ReadPin`); after it, the write is counted for a
    /// TPM's rollback counter (item writes go through `write` instead: `GroupCommit`). Any other call is a read:
    /// one that `readsItems` counts towards the read pin and runs with it held; any other (a setting such as the
    /// passcode's lockout or KDF, a query plan) neither counts towards a pin nor takes one, so that a command reading
    /// one item beside its status opens no second connection. Either gives a held pin back when it saw another
    /// connection's change.
    func perform<Result: Sendable>(
        writing: Bool = false, readsItems: Bool = false, _ body: (KeychainEngine) throws -> Result
    ) throws(KeychainError) -> Result {
        do {
            return try engine.withLock { engine in
                defer { readers?.publish(from: engine) }
                engine.readPin?.giveUpIfForked()
                do {
                    guard writing else {
                        if readsItems, let pin = engine.readPin, pin.beforeRead() {
                            scheduleReadPinGiveBack(after: pin.idleMilliseconds)
                        }
                        let result = try body(engine)
                        engine.readPin?.afterRead(dataVersion: engine.connection.dataVersion)
                        return result
                    }
                    try engine.reopenForWritingIfRefused()
                    engine.readPin?.beforeWrite()
                    let result = try body(engine)
                    if engine.writeRefusal == nil {
                        try engine.rollbackCounter?.recordWrite(engine.connection)
                    }
                    return result
                } catch {
                    throw engine.refusal(for: error)
                }
            }
        } catch {
            throw KeychainError(converting: error)
        }
    }
}
