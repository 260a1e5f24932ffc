import ClavisCore
public import ClavisStore
import Synchronization

/// Runs the keychain engine in this process, on the home folder named by the environment (`$CLAVIS_HOME`, else
/// `$XDG_DATA_HOME/clavis`, else `~/.local/share/clavis`).
///
/// The store is opened once per process and home, on the first call, and kept open.
struct EmbeddedTransport: KeychainTransport {
    func store() throws(KeychainError) -> any KeychainStore {
        try Self.keychain(home: .fromEnvironment())
    }

    /// The process's keychain for `home`, opened on first use. A failure to open is not remembered, so a later
    /// call retries (the folder may have been fixed in between).
    static func keychain(home: KeychainHome) throws(KeychainError) -> Keychain {
        try opened.withLock { opened throws(KeychainError) in
            if let keychain = opened[home] { return keychain }
            let keychain = try Keychain(home: home)
            opened[home] = keychain
            return keychain
        }
    }

    private static let opened = Mutex<[KeychainHome: Keychain]>([:])
}

/// The embedded keychain of this process, for the `clavis` command's lock, unlock and passcode verbs.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_spi(Clavis) public func ClavisEmbeddedKeychain() throws(KeychainError) -> Keychain {
    try EmbeddedTransport.keychain(home: .fromEnvironment())
}
