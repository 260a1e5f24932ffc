internal import COpenSSL

/// Owns one `EVP_KDF_CTX` for a named OpenSSL key-derivation function, freed (and cleansed) in `deinit`.
final class KDFContext {
    private let pointer: OpaquePointer

    /// Fetches the KDF called `algorithm` (for example "HKDF") and creates a context for it.
    init(algorithm: String) throws(CryptoError) {
        guard let kdf = EVP_KDF_fetch(nil, algorithm, nil) else { throw OpenSSLStatus.failure("EVP_KDF_fetch") }
        // The context takes its own reference to the fetched method, so ours is released straight away.
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw OpenSSLStatus.failure("EVP_KDF_CTX_new") }
        pointer = context
    }

    deinit {
        EVP_KDF_CTX_free(pointer)
    }

    /// Derives `count` bytes into `output` using `parameters`, which must end with `OSSL_PARAM_construct_end()`.
    func derive(into output: UnsafeMutablePointer<UInt8>, count: Int, parameters: [OSSL_PARAM]) throws(CryptoError) {
        let status = parameters.withUnsafeBufferPointer { EVP_KDF_derive(pointer, output, count, $0.baseAddress) }
        try OpenSSLStatus.check(status, "EVP_KDF_derive")
    }
}
