/// SHA-256 (FIPS 180-4), computed by OpenSSL.
public enum SHA256 {
    /// The length of a digest in bytes.
    public static let byteCount = 32

    /// SHA-256 of `message` (OpenSSL's one-shot EVP_Digest, as every `DigestAlgorithm`).
    ///
    /// Traps only if OpenSSL cannot compute a digest at all (no SHA-256 provider or no memory).
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        DigestAlgorithm.sha256.hash(message)
    }
}
