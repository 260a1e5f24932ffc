#if os(Linux)
    import ClavisClient
    import Foundation

    /// Runs `body` with every keychain call of this task (and `LAContext`s made in it) on the keychain in `path`: the
    /// embedded one, or (through the daemon, `Tests/through-daemon.sh`) a user-mode clavisd serving that folder.
    @discardableResult
    public func withKeychainHome<Result>(_ path: String, _ body: () throws -> Result) rethrows -> Result {
        try ClavisConfiguration.withConfiguration(keychainConfiguration(home: path), body)
    }

    /// The configuration of the keychain in `path`: embedded, or through its own test daemon.
    private func keychainConfiguration(home path: String) -> ClavisConfiguration {
        TestKeychain.prepare()
        let embedded = ClavisConfiguration.current.with(home: path)
        return embedded.with(daemonSocket: TestKeychain.daemonSocket(home: path) ?? embedded.daemonSocket)
    }

    /// The asynchronous form of `withKeychainHome(_:_:)`.
    @discardableResult
    public func withKeychainHome<Result>(
        _ path: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await ClavisConfiguration.withConfiguration(keychainConfiguration(home: path), body)
    }
#endif
