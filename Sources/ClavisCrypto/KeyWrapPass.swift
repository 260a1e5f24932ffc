internal import COpenSSL

extension CipherContext {
    /// One RFC 3394/5649 pass through OpenSSL's wrap cipher already set up on this context (key and direction): the input
    /// in, the wrapped or unwrapped key out; returns the bytes written.
    ///
    /// - Throws: `authenticationFailed` when an unwrap's integrity check fails, `invalidInput` for an input longer
    ///   than OpenSSL takes, an OpenSSL failure otherwise.
    func keyWrapPass(
        encrypting: Bool, input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>
    ) throws(CryptoError) -> Int {
        guard let length = Int32(exactly: count) else {
            throw .invalidInput("key wrap input of \(count) bytes exceeds OpenSSL's int length")
        }
        var written: Int32 = 0
        guard EVP_CipherUpdate(pointer, output, &written, input, length) == 1, written > 0 else {
            throw encrypting ? OpenSSLStatus.failure("EVP_CipherUpdate") : OpenSSLStatus.cleared(.authenticationFailed)
        }
        var trailing: Int32 = 0
        guard EVP_CipherFinal_ex(pointer, output + Int(written), &trailing) == 1 else {
            throw encrypting
                ? OpenSSLStatus.failure("EVP_CipherFinal_ex") : OpenSSLStatus.cleared(.authenticationFailed)
        }
        return Int(written) + Int(trailing)
    }
}
