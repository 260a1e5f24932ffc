internal import COpenSSL

/// An OpenSSL `X509_STORE_CTX` set up to verify one certificate; the one owner of it, freed in `deinit`.
///
/// It refers to the store, the leaf and the untrusted stack without owning them, so it keeps them alive.
final class VerificationContext {
    /// The owned context.
    let pointer: OpaquePointer
    /// The anchors, the leaf and the other certificates the context reads.
    private let store: TrustStore
    private let leaf: X509Certificate
    private let untrusted: CertificateStack

    /// A context verifying `leaf` against `store`, with `untrusted` to build the chain from.
    init(store: TrustStore, leaf: X509Certificate, untrusted: CertificateStack) throws(CryptoError) {
        guard let context = X509_STORE_CTX_new() else { throw OpenSSLStatus.failure("X509_STORE_CTX_new") }
        guard X509_STORE_CTX_init(context, store.pointer, leaf.pointer, untrusted.pointer) == 1 else {
            X509_STORE_CTX_free(context)
            throw OpenSSLStatus.failure("X509_STORE_CTX_init")
        }
        pointer = context
        self.store = store
        self.leaf = leaf
        self.untrusted = untrusted
    }

    deinit {
        X509_STORE_CTX_free(pointer)
    }

    /// The context's verification parameters (owned by the context).
    var parameters: OpaquePointer { X509_STORE_CTX_get0_param(pointer) }
}
