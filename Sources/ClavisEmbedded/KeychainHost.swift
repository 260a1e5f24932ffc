public import ClavisCore
public import ClavisIdentity
package import ClavisStore
import Synchronization

/// The keychains one owner has open: clavisd's, or a process's `ServiceDirectory`'s. Each home is opened once, on
/// first use, and kept until the owner closes it or drops the host (the last reference closes its database, so that
/// SQLite folds its write-ahead log back for the next process).
public final class KeychainHost: Sendable {
    private let opened = Mutex<[KeychainHome: Keychain]>([:])
    private let closings = Atomic<Int>(0)
    private let releasers = Mutex<[@Sendable () -> Void]>([])

    /// A host with no keychain open.
    public init() {}

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
            ledger: ledger, registeredGroups: registeredGroups)
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
        if closed == true { releaseKept() }
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
