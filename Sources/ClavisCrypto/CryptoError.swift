/// Errors from cryptographic operations; messages never contain key material.
public enum CryptoError: Error, Sendable, Equatable {
    /// A GCM tag mismatch or a key-unwrap integrity failure: wrong key, wrong associated data or altered bytes.
    case authenticationFailed
    /// A key had the wrong length.
    case invalidKeySize(expected: Int, actual: Int)
    /// An input was malformed, for example ciphertext too short or parameters read from disk out of range.
    case invalidInput(String)
    /// An OpenSSL call failed; the message names the call, for example "EVP_EncryptInit_ex".
    case library(String)
}
