internal import COpenSSL
public import ClavisCore

/// An HMAC-SHA256 key kept keyed: the inner and outer padded states are computed once, so each code costs only
/// the message's hashing (two SHA-256 blocks for a short message, without an allocation), where a one-shot call
/// fetches and keys HMAC again and OpenSSL's kept `EVP_MAC_CTX` still duplicates two provider contexts per code.
///
/// Owns the two hashing states, which are derived from the key and are cleansed in `deinit`. Not thread-safe: one
/// owner uses it at a time.
public final class HMACSHA256Key {
    private let states: UnsafeMutablePointer<clavis_hmac_sha256_key>

    /// Keys HMAC-SHA256 with `key`.
    public init(_ key: SecureBytes) {
        states = .allocate(capacity: 1)
        key.withUnsafeBytes { bytes in
            clavis_hmac_sha256_key_init(
                states, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
    }

    deinit {
        OPENSSL_cleanse(states, MemoryLayout<clavis_hmac_sha256_key>.size)
        states.deallocate()
    }

    /// HMAC-SHA256 of `message` under this key.
    public func authenticationCode(for message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
        code.withUnsafeMutableBufferPointer { compute(message, into: $0.baseAddress!) }
        return code
    }

    /// The first `byteCount` bytes (at most `HMACSHA256.byteCount`) of the HMAC-SHA256 of `message` under this key,
    /// as a truncated digest is used: computed on the stack, so that only the bytes kept are allocated.
    public func authenticationCode(for message: [UInt8], truncatedTo byteCount: Int) -> [UInt8] {
        precondition(byteCount <= HMACSHA256.byteCount, "HMAC-SHA256 has \(HMACSHA256.byteCount) bytes")
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: HMACSHA256.byteCount) { code in
            compute(message, into: code.baseAddress!)
            return Array(code.prefix(byteCount))
        }
    }

    /// HMAC-SHA256 of `message` under this key, in a zeroing container: HMAC as a pseudorandom function whose
    /// output is itself a key.
    public func derivedKey(for message: [UInt8]) -> SecureBytes {
        SecureBytes(count: HMACSHA256.byteCount) { output in
            compute(message, into: output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Writes the code of `message` to the `HMACSHA256.byteCount` bytes at `output`.
    private func compute(_ message: [UInt8], into output: UnsafeMutablePointer<UInt8>) {
        message.withUnsafeBufferPointer { input in
            clavis_hmac_sha256(states, input.baseAddress, input.count, output)
        }
    }
}
