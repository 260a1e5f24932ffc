public import ClavisCore
public import ClavisIdentity
package import ClavisStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The keychains one owner has open: clavisd's, or a process's `ServiceDirectory`'s. Each home is opened once, on
/// first use, and kept until the owner closes it or drops the host (the last reference closes its database, so that
/// SQLite folds its write-ahead log back for the next process).
public final class KeychainHost: Sendable {
    private let opened = Mutex<[KeychainHome: Keychain]>([:])
    private let closings = Atomic<Int>(0)
    private let releasers = Mutex<[@Sendable () -> Void]>([])
    /// The sync of each keychain open here.
    private let synchronizers = Mutex<[KeychainHome: KeychainSynchronizer]>([:])
    /// True when each keychain's sync rounds run on a thread of their own (clavisd's host).
    public let runsSyncInBackground: Bool
    /// Where those threads say what their rounds did.
    private let syncReport: @Sendable (String) -> Void

    /// A host with no keychain open; its keychains sync in the background when `runsSyncInBackground` (in clavisd,
    /// the one process that writes them), saying what their rounds did through `syncReport`, else on
    /// `SyncCommand.now` only.
    public init(runsSyncInBackground: Bool = false, syncReport: @escaping @Sendable (String) -> Void = { _ in }) {
        self.runsSyncInBackground = runsSyncInBackground
        self.syncReport = syncReport
    }

    /// The keychain in `home`, opened on first use. A failure to open is not remembered, so a later call retries
    /// (the folder may have been fixed in between).
    ///
    /// - Parameters:
    ///   - mapsDatabase: how a keychain opened now reads its database (see `Keychain.init`); a keychain already open
    ///     keeps its way.
    ///   - clock: where a keychain opened now reads the time; a keychain already open keeps its clock.
    ///   - deviceKeyOptions: how a keychain created now binds its device key, and where its TPM is reached.
    ///   - readers: how many connections of a keychain opened now serve item reads in parallel (`Keychain.init`).
    package func keychain(
        home: KeychainHome, mapsDatabase: Bool = true, clock: KeychainClock = .system,
        deviceKeyOptions: DeviceKeyOptions = .file, readers: Int = 0
    ) throws(KeychainError) -> Keychain {
        try opened.withLock { opened throws(KeychainError) in
            if let keychain = opened[home] { return keychain }
            let keychain = try Keychain(
                home: home, deviceKeyOptions: deviceKeyOptions, mapsDatabase: mapsDatabase, clock: clock,
                readers: readers)
            opened[home] = keychain
            return keychain
        }
    }

    /// How many connections a daemon's keychains read on in parallel (`Keychain.daemonReaders`).
    public static var daemonReaders: Int { Keychain.daemonReaders }

    /// The service on the keychain in `home` (opened here on first use, as `keychain(home:...)` says) for a caller
    /// holding `entitlements`, authenticating with `authenticators` and keeping what its sessions proved in `ledger`;
    /// `registeredGroups` names the groups an app registry still gives out (see `EmbeddedKeychainService.init`).
    public func service(
        home: KeychainHome, entitlements: Entitlements, reason: String, authenticators: ServiceAuthenticators = .none,
        ledger: AuthenticationLedger = AuthenticationLedger(),
        registeredGroups: (@Sendable () -> Set<String>)? = nil, mapsDatabase: Bool = true,
        clock: KeychainClock = .system, deviceKeyOptions: DeviceKeyOptions = .file, readers: Int = 0
    ) throws(KeychainError) -> EmbeddedKeychainService {
        let keychain = try keychain(
            home: home, mapsDatabase: mapsDatabase, clock: clock, deviceKeyOptions: deviceKeyOptions, readers: readers)
        return EmbeddedKeychainService(
            keychain: keychain, entitlements: entitlements, reason: reason, authenticators: authenticators,
            ledger: ledger, registeredGroups: registeredGroups, synchronizer: synchronizer(for: keychain))
    }

    /// The sync of `keychain`, made (and, in the background, started) on first use.
    package func synchronizer(for keychain: Keychain) -> KeychainSynchronizer {
        synchronizers.withLock { synchronizers in
            if let running = synchronizers[keychain.home], running.keychain === keychain { return running }
            synchronizers[keychain.home]?.stop()
            let synchronizer = KeychainSynchronizer(
                keychain: keychain, runsInBackground: runsSyncInBackground, report: syncReport)
            synchronizers[keychain.home] = synchronizer
            synchronizer.start()
            return synchronizer
        }
    }

    /// Opens the keychain in `home` if it exists, so that its sync resumes before any client asks (clavisd's start);
    /// false when there is none yet.
    public func resumeSync(
        home: KeychainHome, mapsDatabase: Bool, deviceKeyOptions: DeviceKeyOptions, readers: Int
    ) throws(KeychainError) -> Bool {
        guard access(home.databasePath, F_OK) == 0 else { return false }
        _ = synchronizer(
            for: try keychain(
                home: home, mapsDatabase: mapsDatabase, deviceKeyOptions: deviceKeyOptions, readers: readers))
        return true
    }

    /// Locks the keychains open here in `homes` (every one when `nil`) that have a passcode, and returns their
    /// folders. One without a passcode stays as it is: its user could not unlock it again.
    public func lockThoseWithPasscode(in homes: [KeychainHome]?) -> [KeychainHome] {
        let keychains = homes.map { $0.compactMap(ifOpen(home:)) } ?? all
        return keychains.filter(\.hasPasscode).map { keychain in
            keychain.lock()
            return keychain.home
        }
    }

    /// Closes the keychain of `home` (once no call uses it any more): the next call opens it again, as a new process
    /// would, before the first unlock when it has a passcode. For tests that restart the device (`ClavisTesting`).
    public func close(home: KeychainHome) {
        _ = opened.withLock { opened in
            closings.add(1, ordering: .relaxed)
            return opened.removeValue(forKey: home)
        }
        synchronizers.withLock { $0.removeValue(forKey: home)?.stop() }
        releaseKept()
    }

    /// Releases every open keychain, unless another thread is opening one right now (at process exit, that thread
    /// still holds what it opens).
    public func closeAll() {
        let closed = opened.withLockIfAvailable { opened in
            closings.add(1, ordering: .relaxed)
            opened.removeAll()
            return true
        }
        guard closed == true else { return }
        let stopping = synchronizers.withLock { synchronizers in
            defer { synchronizers.removeAll() }
            return Array(synchronizers.values)
        }
        for synchronizer in stopping { synchronizer.stop() }
        releaseKept()
    }

    /// How many times a keychain was closed: a service made for a keychain stays valid while this is unchanged.
    public var generation: Int { closings.load(ordering: .relaxed) }

    /// Registers `release`, which drops what its caller keeps of an open keychain (a service made for it), to run
    /// whenever a keychain closes, so that the keychain is really closed then.
    public func whenClosing(_ release: @escaping @Sendable () -> Void) {
        releasers.withLock { $0.append(release) }
    }

    /// The keychain in `home` if it is open here; `nil` otherwise (nothing is opened).
    package func ifOpen(home: KeychainHome) -> Keychain? {
        opened.withLock { $0[home] }
    }

    /// Every keychain open here.
    package var all: [Keychain] {
        opened.withLock { Array($0.values) }
    }

    private func releaseKept() {
        for release in releasers.withLock({ $0 }) { release() }
    }
}
