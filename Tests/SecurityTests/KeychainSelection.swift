import ClavisClient
import Foundation

/// Runs `body` with every keychain call of this task (and `LAContext`s made in it) on the keychain in `path`.
@discardableResult
func withKeychainHome<Result>(_ path: String, _ body: () throws -> Result) rethrows -> Result {
    TestKeychain.prepare()
    return try ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(home: path), body)
}

/// The asynchronous form of `withKeychainHome(_:_:)`.
@discardableResult
func withKeychainHome<Result>(
    _ path: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
    TestKeychain.prepare()
    return try await ClavisConfiguration.withConfiguration(ClavisConfiguration.current.with(home: path), body)
}
