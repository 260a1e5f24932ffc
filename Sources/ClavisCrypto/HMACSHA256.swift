internal import COpenSSL
public import ClavisCore

/// HMAC with SHA-256 (RFC 2104), computed by OpenSSL.
public enum HMACSHA256 {
    /// The length of an authentication code in bytes.
    public static let byteCount = 32

    /// HMAC-SHA256 of `message` under `key` (OpenSSL's one-shot EVP_Q_mac "HMAC").
    ///
    /// Traps only if OpenSSL cannot compute a MAC at all (no SHA-256 provider or no memory).
    public static func authenticationCode(for message: [UInt8], key: SecureBytes) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: byteCount)
        let outcome = code.withUnsafeMutableBytes { out in
            ByteAccess.callMutable(out) { outPointer, outCount throws(CryptoError) in
                try key.withBytes { keyPointer, keyCount throws(CryptoError) in
                    try message.withBytes { messagePointer, messageCount throws(CryptoError) in
                        var written = 0
                        let result = EVP_Q_mac(
                            nil, "HMAC", nil, "SHA256", nil, keyPointer, keyCount, messagePointer, messageCount,
                            outPointer, outCount, &written)
                        guard result != nil, written == byteCount else { throw OpenSSLStatus.failure("EVP_Q_mac") }
                    }
                }
            }
        }
        if case .failure(let error) = outcome { fatalError("HMAC-SHA256 unavailable: \(error)") }
        return code
    }
}
