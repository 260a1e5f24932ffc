internal import COpenSSL

/// The SHA family hashes Apple's key algorithms name (FIPS 180-4), computed by OpenSSL.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// SHA-1 (160 bits).
    case sha1 = "SHA1"
    /// SHA-224.
    case sha224 = "SHA224"
    /// SHA-256.
    case sha256 = "SHA256"
    /// SHA-384.
    case sha384 = "SHA384"
    /// SHA-512.
    case sha512 = "SHA512"

    /// The length of a digest in bytes.
    public var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// OpenSSL's digest object, fetched once per process.
    var method: OpaquePointer {
        switch self {
        case .sha1: FetchedDigest.sha1.pointer
        case .sha224: FetchedDigest.sha224.pointer
        case .sha256: FetchedDigest.sha256.pointer
        case .sha384: FetchedDigest.sha384.pointer
        case .sha512: FetchedDigest.sha512.pointer
        }
    }

    /// The digest of `message` (OpenSSL's one-shot EVP_Digest); traps only if OpenSSL has no such digest.
    public func hash(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var written: UInt32 = 0
        let result = message.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                EVP_Digest(
                    input.baseAddress, input.count, output.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    &written, method, nil)
            }
        }
        guard result == 1, Int(written) == byteCount else { fatalError("\(rawValue) unavailable") }
        return digest
    }
}
