internal import COpenSSL
public import ClavisCore

/// An HMAC-SHA256 key kept keyed: the inner and outer padded states are computed once, so each code costs only
/// the message's hashing (about 0.3 µs for a short one, against several for a one-shot call that fetches and keys
/// HMAC again).
///
/// Owns one `EVP_MAC_CTX`, freed and cleansed (key and keyed states) in `deinit`. Not thread-safe: one owner uses it
/// at a time.
public final class HMACSHA256Key {
    private let context: OpaquePointer

    /// Keys HMAC-SHA256 with `key`.
    ///
    /// Traps only if OpenSSL cannot compute a MAC at all (no SHA-256 provider or no memory).
    public init(_ key: SecureBytes) {
        guard let context = EVP_MAC_CTX_new(FetchedMAC.hmac.pointer) else { fatalError("EVP_MAC_CTX_new failed") }
        self.context = context
        let keyed = try? key.withBytes { pointer, count throws(CryptoError) in
            var parameters = [clavis_mac_param_digest_sha256(), OSSL_PARAM_construct_end()]
            return EVP_MAC_init(context, pointer, count, &parameters)
        }
        guard keyed == 1 else { fatalError("HMAC-SHA256 unavailable: EVP_MAC_init failed") }
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// HMAC-SHA256 of `message` under this key.
    public func authenticationCode(for message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: HMACSHA256.byteCount)
        code.withUnsafeMutableBufferPointer { compute(message, into: $0.baseAddress!) }
        return code
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
        var written = 0
        // Initialising without a key restarts from the kept keyed state.
        let status = try? message.withBytes { input, inputCount throws(CryptoError) in
            guard EVP_MAC_init(context, nil, 0, nil) == 1, EVP_MAC_update(context, input, inputCount) == 1 else {
                return Int32(0)
            }
            return EVP_MAC_final(context, output, &written, HMACSHA256.byteCount)
        }
        guard status == 1, written == HMACSHA256.byteCount else { fatalError("HMAC-SHA256 failed") }
    }
}
