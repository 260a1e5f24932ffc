import ClavisCore
public import ClavisStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs the keychain engine in this process, on the home folder named by the environment (`$CLAVIS_HOME`, else
/// `$XDG_DATA_HOME/clavis`, else `~/.local/share/clavis`).
///
/// The store is opened once per process and home, on the first call, and kept open until the process exits, when
/// it is closed (so SQLite folds its write-ahead log back into the database for the next process).
struct EmbeddedTransport: KeychainTransport {
    func store() throws(KeychainError) -> any KeychainStore {
        try Self.keychain(home: Self.home)
    }

    /// The home this task uses: the one set by `ClavisWithKeychainHome`, else the environment's.
    static var home: KeychainHome { homeOverride ?? .fromEnvironment() }

    /// A home chosen for one task and the tasks it starts (`ClavisWithKeychainHome`).
    @TaskLocal static var homeOverride: KeychainHome?

    /// The process's keychain for `home`, opened on first use. A failure to open is not remembered, so a later
    /// call retries (the folder may have been fixed in between).
    static func keychain(home: KeychainHome) throws(KeychainError) -> Keychain {
        try opened.withLock { opened throws(KeychainError) in
            if let keychain = opened[home] { return keychain }
            let keychain = try Keychain(home: home)
            if opened.isEmpty { atexit(closeEmbeddedKeychains) }
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

/// Runs at process exit: closes the embedded keychains.
private func closeEmbeddedKeychains() {
    EmbeddedTransport.closeAll()
}

/// The embedded keychain of this process, for the `clavis` command's lock, unlock and passcode verbs.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisEmbeddedKeychain() throws(KeychainError) -> Keychain {
    try EmbeddedTransport.keychain(home: EmbeddedTransport.home)
}

/// Runs `body` with every keychain call of this task (and the tasks it starts) on the keychain in `path` instead of
/// the environment's: for tests and programs that keep several keychains.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisWithKeychainHome<Result>(_ path: String, _ body: () throws -> Result) rethrows
    -> Result
{
    try EmbeddedTransport.$homeOverride.withValue(KeychainHome(path: path), operation: body)
}

/// The asynchronous form of `ClavisWithKeychainHome`.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisWithKeychainHome<Result>(
    _ path: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
    try await EmbeddedTransport.$homeOverride.withValue(KeychainHome(path: path), operation: body)
}
