internal import COpenSSL

/// SHA-256 (FIPS 180-4), computed by OpenSSL.
public enum SHA256 {
    /// The length of a digest in bytes.
    public static let byteCount = 32

    /// SHA-256 of `message` (OpenSSL's one-shot EVP_Digest).
    ///
    /// Traps only if OpenSSL cannot compute a digest at all (no SHA-256 provider or no memory).
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var written: UInt32 = 0
        let result = message.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                EVP_Digest(
                    input.baseAddress, input.count, output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    &written, EVP_sha256(), nil)
            }
        }
        guard result == 1, written == byteCount else { fatalError("SHA-256 unavailable") }
        return digest
    }
}
