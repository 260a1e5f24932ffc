internal import COpenSSL
public import ClavisCore

/// An AES-256 key-encryption key kept scheduled for RFC 3394 key wrap: each wrap or unwrap reuses a cipher context
/// keyed once, instead of allocating a context and expanding the key every time.
///
/// Owns one cipher context per direction (created on first use), freed and cleansed, key schedule included, in
/// `deinit`. Not thread-safe: one owner uses it at a time.
public final class AESKeyWrapKey {
    private let kek: SecureBytes
    private var wrapping: CipherContext?
    private var unwrapping: CipherContext?

    /// Keeps `kek`, which must be 32 bytes.
    public init(_ kek: SecureBytes) throws(CryptoError) {
        guard kek.count == AESGCM.keyByteCount else {
            throw .invalidKeySize(expected: AESGCM.keyByteCount, actual: kek.count)
        }
        self.kek = kek
    }

    /// RFC 3394 wrap of `key` (at least 16 bytes, in 8-byte steps); the same output as `AESKeyWrap.wrap`.
    public func wrap(_ key: SecureBytes) throws(CryptoError) -> [UInt8] {
        guard key.count >= 16, key.count.isMultiple(of: 8) else {
            throw .invalidInput("RFC 3394 key wrap needs a key of at least 16 bytes in 8-byte steps, got \(key.count)")
        }
        let context = try self.context(encrypting: true)
        var output = [UInt8](repeating: 0, count: key.count + 8)
        let produced = try output.withMutableBytes { out, _ throws(CryptoError) in
            try key.withBytes { input, count throws(CryptoError) in
                try Self.run(context, encrypting: true, input: input, count: count, output: out)
            }
        }
        return Array(output[0..<produced])
    }

    /// Unwraps an RFC 3394 wrapped key; `authenticationFailed` when the integrity check fails.
    public func unwrap(_ wrapped: [UInt8]) throws(CryptoError) -> SecureBytes {
        guard wrapped.count >= 24, wrapped.count.isMultiple(of: 8) else {
            throw .invalidInput("RFC 3394 wrapped key must be at least 24 bytes in 8-byte steps, got \(wrapped.count)")
        }
        let context = try self.context(encrypting: false)
        var produced = 0
        let scratch = try SecureBytes.filling(count: wrapped.count) { out throws(CryptoError) in
            produced = try wrapped.withBytes { input, count throws(CryptoError) in
                try Self.run(context, encrypting: false, input: input, count: count, output: out)
            }
        }
        return produced == scratch.count ? scratch : scratch.prefix(produced)
    }

    /// The context of one direction, keyed on first use (a wrap cipher's key schedule serves one direction only).
    private func context(encrypting: Bool) throws(CryptoError) -> CipherContext {
        if let existing = encrypting ? wrapping : unwrapping { return existing }
        let context = try CipherContext()
        // OpenSSL refuses wrap-mode ciphers unless the caller opts in with this flag.
        EVP_CIPHER_CTX_set_flags(context.pointer, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW)
        try kek.withBytes { kekPointer, _ throws(CryptoError) in
            try OpenSSLStatus.check(
                EVP_CipherInit_ex(
                    context.pointer, FetchedCipher.aes256Wrap.pointer, nil, kekPointer, nil, encrypting ? 1 : 0),
                "EVP_CipherInit_ex")
        }
        if encrypting { wrapping = context } else { unwrapping = context }
        return context
    }

    private static func run(
        _ context: CipherContext, encrypting: Bool, input: UnsafePointer<UInt8>, count: Int,
        output: UnsafeMutablePointer<UInt8>
    ) throws(CryptoError) -> Int {
        // Restart with the kept key schedule and the default initial value.
        try OpenSSLStatus.check(
            EVP_CipherInit_ex(context.pointer, nil, nil, nil, nil, encrypting ? 1 : 0), "EVP_CipherInit_ex")
        return try context.keyWrapPass(encrypting: encrypting, input: input, count: count, output: output)
    }
}
