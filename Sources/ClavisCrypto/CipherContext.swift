internal import COpenSSL

/// Owns one `EVP_CIPHER_CTX`, which OpenSSL cleanses (key schedule included) when it is freed in `deinit`.
final class CipherContext {
    /// The owned context; valid for the lifetime of this object.
    let pointer: OpaquePointer

    /// Allocates a fresh, uninitialised cipher context.
    init() throws(CryptoError) {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw OpenSSLStatus.failure("EVP_CIPHER_CTX_new") }
        self.pointer = pointer
    }

    deinit {
        EVP_CIPHER_CTX_free(pointer)
    }
}
