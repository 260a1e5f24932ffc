import ClavisCore

/// Runs the keychain engine in this process, on the home folder named by the environment.
struct EmbeddedTransport: KeychainTransport {
    func store() throws(KeychainError) -> any KeychainStore {
        throw KeychainError(.notAvailable, "the embedded keychain store is not available yet")
    }
}
