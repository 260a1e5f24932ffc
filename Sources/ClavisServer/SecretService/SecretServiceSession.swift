import ClavisCore
import ClavisCrypto

/// A Secret Service session: how secrets travel between the provider and one client. `plain` sends them as they
/// are; `dh-ietf1024-sha256-aes128-cbc-pkcs7` agrees on a key (Diffie-Hellman over RFC 2409's 1024-bit group, the
/// shared secret through HKDF-SHA256 with an empty salt and info to 16 bytes) and sends each secret AES-128-CBC
/// encrypted with PKCS#7 padding, its random IV as the secret's parameters.
struct SecretServiceSession {
    /// The algorithm names of the specification.
    static let plainAlgorithm = "plain"
    static let dhAlgorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// The client's unique bus name: the session is its alone, and ends when it leaves the bus.
    let owner: String
    /// The AES key, or `nil` for `plain`.
    private let key: SecureBytes?

    /// Opens a session for `owner` with `algorithm` and the client's `input` (its DH public key); the server's
    /// output (its DH public key) with it.
    ///
    /// - Throws: `notSupported` for another algorithm, `invalidArguments` for a missing or bad public key.
    static func open(owner: String, algorithm: String, input: [UInt8]?) throws(SecretServiceError)
        -> (session: SecretServiceSession, output: [UInt8]?)
    {
        switch algorithm {
        case plainAlgorithm:
            return (SecretServiceSession(owner: owner, key: nil), nil)
        case dhAlgorithm:
            guard let input else {
                throw SecretServiceError(.invalidArguments, "the DH session needs the client's public key (ay)")
            }
            do {
                let pair = try DiffieHellmanGroup2()
                let shared = try pair.sharedSecret(with: input)
                let key = try HKDFSHA256.deriveKey(
                    from: shared, salt: [], info: [], outputByteCount: AESCBC.keyByteCount)
                return (SecretServiceSession(owner: owner, key: key), pair.publicKey)
            } catch {
                throw SecretServiceError(.invalidArguments, "the DH session cannot be opened: \(error)")
            }
        default:
            throw SecretServiceError(.notSupported, "the algorithm '\(algorithm)' is not supported")
        }
    }

    /// The secret a client sent, decrypted.
    ///
    /// - Throws: `invalidArguments` when it does not decrypt (a wrong IV or key, bad padding).
    func open(_ secret: SecretServiceRequest.TransportedSecret) throws(SecretServiceError) -> SecureBytes {
        guard let key else { return secret.value }
        do {
            return try AESCBC.decrypt(secret.value.withUnsafeBytes { Array($0) }, key: key, iv: secret.parameters)
        } catch {
            throw SecretServiceError(.invalidArguments, "the secret does not decrypt with its session's key")
        }
    }

    /// `secret` sealed for the client, on the session at `path`.
    func seal(_ secret: SecureBytes, contentType: String, path: String) throws(SecretServiceError)
        -> SecretServiceRequest.TransportedSecret
    {
        guard let key else {
            return .init(
                session: path, parameters: [], value: secret, contentType: contentType)
        }
        let iv = SecureRandom.bytes(count: AESCBC.blockByteCount)
        do {
            let value = try AESCBC.encrypt(secret, key: key, iv: iv)
            return .init(session: path, parameters: iv, value: SecureBytes(value), contentType: contentType)
        } catch {
            throw SecretServiceError(.failed, "the secret cannot be encrypted for its session")
        }
    }
}
