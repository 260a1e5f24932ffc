internal import COpenSSL

/// An OpenSSL `X509_STORE` of trust anchors; the one owner of it, freed in `deinit`.
final class TrustStore {
    /// The owned store.
    let pointer: OpaquePointer

    /// An empty store.
    init() throws(CryptoError) {
        guard let store = X509_STORE_new() else { throw OpenSSLStatus.failure("X509_STORE_new") }
        pointer = store
    }

    deinit {
        X509_STORE_free(pointer)
    }

    /// Trusts `certificate` as an anchor.
    func add(_ certificate: X509Certificate) throws(CryptoError) {
        try OpenSSLStatus.check(X509_STORE_add_cert(pointer, certificate.pointer), "X509_STORE_add_cert")
    }

    /// Trusts the certificates of a hashed directory (`c_rehash` links, as /etc/ssl/certs has), or OpenSSL's
    /// default file and directory when `directory` is nil.
    func addSystemAnchors(directory: String?) throws(CryptoError) {
        if let directory {
            try OpenSSLStatus.check(X509_STORE_load_path(pointer, directory), "X509_STORE_load_path")
        } else {
            try OpenSSLStatus.check(X509_STORE_set_default_paths(pointer), "X509_STORE_set_default_paths")
        }
    }
}
