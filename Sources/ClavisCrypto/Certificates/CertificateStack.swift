internal import COpenSSL

/// An OpenSSL `STACK_OF(X509)` holding a reference to each of its certificates; the one owner of the stack and
/// those references, freed in `deinit`.
final class CertificateStack {
    /// The owned stack.
    let pointer: OpaquePointer

    /// An empty stack.
    init() throws(CryptoError) {
        guard let stack = clavis_x509_stack_new() else { throw OpenSSLStatus.failure("sk_X509_new_null") }
        pointer = stack
    }

    /// Takes ownership of a stack OpenSSL handed out (such as `X509_STORE_CTX_get1_chain`'s).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        clavis_x509_stack_free(pointer)
    }

    /// Appends a reference to `certificate`.
    func append(_ certificate: X509Certificate) throws(CryptoError) {
        guard clavis_x509_stack_push(pointer, certificate.pointer) == 1 else {
            throw OpenSSLStatus.failure("sk_X509_push")
        }
    }

    /// The certificates, each as an owner of a reference of its own.
    func certificates() -> [X509Certificate] {
        (0..<clavis_x509_stack_count(pointer)).compactMap { index in
            guard let certificate = clavis_x509_stack_copy(pointer, index) else { return nil }
            return try? X509Certificate(taking: certificate)
        }
    }
}
