internal import COpenSSL

/// Owns one `EVP_PKEY_CTX` for operations with one key, freed in `deinit`; each operation starts with its
/// `…_init` call, which resets whatever the previous one configured.
///
/// The context holds its own reference to the key's `EVP_PKEY`. Used by one caller at a time: the key's pool of
/// idle contexts hands each out to one borrower, so the unchecked `Sendable` only lets it cross that pool's lock.
final class PublicKeyContext: @unchecked Sendable {
    /// The owned context; valid for the lifetime of this object.
    let pointer: OpaquePointer

    /// Creates a context for operations with `key`.
    init(_ key: AsymmetricKey) throws(CryptoError) {
        guard let pointer = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSLStatus.failure("EVP_PKEY_CTX_new_from_pkey")
        }
        self.pointer = pointer
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
