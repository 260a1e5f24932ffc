public import ClavisCore
public import ClavisStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The keychains this process has open: each home once, on first use, kept open until the process exits, when
/// they are closed (so SQLite folds its write-ahead log back into the database for the next process).
public enum OpenKeychains {
    /// The process's keychain in `home`, opened on first use. A failure to open is not remembered, so a later call
    /// retries (the folder may have been fixed in between).
    ///
    /// - Parameters:
    ///   - mapsDatabase: how a keychain opened now reads its database (see `Keychain.init`); a keychain already open
    ///     keeps its way.
    ///   - clock: where a keychain opened now reads the time; a keychain already open keeps its clock.
    ///   - deviceKeyOptions: how a keychain created now binds its device key, and where its TPM is reached.
    ///   - readers: how many connections of a keychain opened now serve item reads in parallel (`Keychain.init`).
    public static func keychain(
        home: KeychainHome, mapsDatabase: Bool = true, clock: KeychainClock = .system,
        deviceKeyOptions: DeviceKeyOptions = .file, readers: Int = 0
    ) throws(KeychainError) -> Keychain {
        try opened.withLock { opened throws(KeychainError) in
            if let keychain = opened[home] { return keychain }
            let keychain = try Keychain(
                home: home, deviceKeyOptions: deviceKeyOptions, mapsDatabase: mapsDatabase, clock: clock,
                readers: readers)
            if opened.isEmpty { atexit(closeOpenKeychains) }
            opened[home] = keychain
            return keychain
        }
    }

    /// How many connections a daemon's keychains read on in parallel (`Keychain.daemonReaders`).
    public static var daemonReaders: Int { Keychain.daemonReaders }

    /// Closes the keychain of `home` (once no call uses it any more): the next call opens it again, as a new process
    /// would, before the first unlock when it has a passcode. For tests that restart the device (`ClavisTesting`).
    public static func close(home: KeychainHome) {
        _ = opened.withLock { opened in
            closings.add(1, ordering: .relaxed)
            return opened.removeValue(forKey: home)
        }
        releaseKept()
    }

    /// How many times a keychain was closed: a service made for a keychain stays valid while this is unchanged.
    public static var generation: Int { closings.load(ordering: .relaxed) }

    /// Registers `release`, which drops what its caller keeps of an open keychain (a service made for it), to run
    /// whenever a keychain closes, at exit included, so that the keychain is really closed then.
    public static func whenClosing(_ release: @escaping @Sendable () -> Void) {
        releasers.withLock { $0.append(release) }
    }

    private static func releaseKept() {
        for release in releasers.withLock({ $0 }) { release() }
    }

    private static let closings = Atomic<Int>(0)
    private static let releasers = Mutex<[@Sendable () -> Void]>([])

    /// The keychain in `home` if this process has it open; `nil` otherwise (nothing is opened).
    public static func ifOpen(home: KeychainHome) -> Keychain? {
        opened.withLock { $0[home] }
    }

    /// Every keychain this process has open.
    public static var all: [Keychain] {
        opened.withLock { Array($0.values) }
    }

    /// Releases every open keychain, unless another thread is opening one right now.
    static func closeAll() {
        let closed = opened.withLockIfAvailable { opened in
            closings.add(1, ordering: .relaxed)
            opened.removeAll()
            return true
        }
        if closed == true { releaseKept() }
    }

    private static let opened = Mutex<[KeychainHome: Keychain]>([:])
}

/// Runs at process exit: closes the open keychains.
private func closeOpenKeychains() {
    OpenKeychains.closeAll()
}
