/// What a key is asked to do with an algorithm (Apple's `SecKeyOperationType`).
public enum KeyOperation: Sendable, Hashable {
    /// A signature, with a private key.
    case sign
    /// A signature checked, with a public key.
    case verify
    /// Encryption, with a public key.
    case encrypt
    /// Decryption, with a private key.
    case decrypt
    /// An ECDH key exchange, with a private EC key.
    case keyExchange
}
