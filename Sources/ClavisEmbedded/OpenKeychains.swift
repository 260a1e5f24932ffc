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
    ///   - deviceKeyOptions: how a keychain created now binds its device key, and where its TPM is reached.
    public static func keychain(
        home: KeychainHome, mapsDatabase: Bool = true, deviceKeyOptions: DeviceKeyOptions = .file
    ) throws(KeychainError) -> Keychain {
        try opened.withLock { opened throws(KeychainError) in
            if let keychain = opened[home] { return keychain }
            let keychain = try Keychain(home: home, deviceKeyOptions: deviceKeyOptions, mapsDatabase: mapsDatabase)
            if opened.isEmpty { atexit(closeOpenKeychains) }
            opened[home] = keychain
            return keychain
        }
    }

    /// Releases every open keychain, unless another thread is opening one right now.
    static func closeAll() {
        _ = opened.withLockIfAvailable { $0.removeAll() }
    }

    private static let opened = Mutex<[KeychainHome: Keychain]>([:])
}

/// Runs at process exit: closes the open keychains.
private func closeOpenKeychains() {
    OpenKeychains.closeAll()
}
