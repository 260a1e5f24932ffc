internal import COpenSSL

/// Owns one `EVP_PKEY_CTX` for one operation with one key, freed in `deinit`.
final class PublicKeyContext {
    /// The owned context; valid for the lifetime of this object.
    let pointer: OpaquePointer
    /// The key, kept alive as long as the context refers to it.
    private let key: AsymmetricKey

    /// Creates a context for operations with `key`.
    init(_ key: AsymmetricKey) throws(CryptoError) {
        guard let pointer = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSLStatus.failure("EVP_PKEY_CTX_new_from_pkey")
        }
        self.pointer = pointer
        self.key = key
    }

    deinit {
        EVP_PKEY_CTX_free(pointer)
    }

    /// Runs a sign, encrypt or decrypt style call twice: once for the output's size, then into a buffer of
    /// that size; returns the bytes written.
    func produce(
        _ name: String,
        _ call: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>) -> Int32
    ) throws(CryptoError) -> [UInt8] {
        var length = 0
        try OpenSSLStatus.check(call(nil, &length), name)
        var output = [UInt8](repeating: 0, count: Swift.max(length, 1))
        let status = output.withUnsafeMutableBufferPointer { call($0.baseAddress, &length) }
        try OpenSSLStatus.check(status, name)
        return Array(output.prefix(length))
    }
}
