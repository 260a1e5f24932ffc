internal import COpenSSL

/// The one place that turns OpenSSL's integer status codes into `CryptoError`.
enum OpenSSLStatus {
    /// Throws `CryptoError.library(call)` unless `status` is OpenSSL's success value 1.
    static func check(_ status: Int32, _ call: String) throws(CryptoError) {
        guard status == 1 else { throw failure(call) }
    }

    /// Returns the error for a failed `call`, first clearing the thread's OpenSSL error queue so that stale
    /// entries cannot leak into a later, unrelated failure.
    static func failure(_ call: String) -> CryptoError {
        ERR_clear_error()
        return .library(call)
    }

    /// Returns `error` after clearing the thread's OpenSSL error queue (for failures reported as another kind).
    static func cleared(_ error: CryptoError) -> CryptoError {
        ERR_clear_error()
        return error
    }
}
