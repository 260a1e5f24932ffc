import ClavisCore

/// Where a process's keychain calls go: the store that answers them.
///
/// The embedded transport runs the store in this process; a daemon transport (speaking to `clavisd` over its
/// socket) will conform to the same protocol and be chosen by `current` when a daemon is configured.
protocol KeychainTransport: Sendable {
    /// The store that answers this process's calls.
    func store() throws(KeychainError) -> any KeychainStore
}

/// Chooses the transport for this process.
enum Transport {
    /// The transport used now: the embedded store on `$CLAVIS_HOME`.
    static var current: any KeychainTransport { EmbeddedTransport() }
}
