internal import COpenSSL
public import ClavisCore

/// An AES-256 key-encryption key kept scheduled for RFC 3394 key wrap: each wrap or unwrap reuses a cipher context
/// keyed once, instead of allocating a context and expanding the key every time.
///
/// The wrap steps of RFC 3394 §2.2.1 and §2.2.2 run here over OpenSSL's AES-256 in ECB mode, one block at a time.
/// OpenSSL 3.0's own wrap cipher (`AESKeyWrap`, the one-shot form, which the tests hold this to) computes its blocks
/// with the table-driven `AES_encrypt`/`AES_decrypt` instead of the processor's AES instructions: 5 µs for one
/// 32-byte item key against 0.3 µs through ECB, on every keychain read.
///
/// Owns one cipher context per direction (created on first use), freed and cleansed, key schedule included, in
/// `deinit`. Not thread-safe: one owner uses it at a time.
public final class AESKeyWrapKey {
    private let kek: SecureBytes
    private var encrypting: CipherContext?
    private var decrypting: CipherContext?

    /// RFC 3394's default initial value, A6A6A6A6A6A6A6A6.
    private static let initialValue: UInt64 = 0xA6A6_A6A6_A6A6_A6A6

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
        let blocks = key.count / 8
        // Working state, zeroed when released: the registers R[1...n], then one cipher block (A ‖ R[i]).
        let work = try SecureBytes.filling(count: key.count + 16) { state throws(CryptoError) in
            try key.withBytes { input, count throws(CryptoError) in state.update(from: input, count: count) }
            let block = state + key.count
            Self.store(Self.initialValue, at: block)
            for step in 0..<6 {
                for index in 1...blocks {
                    let register = state + (index - 1) * 8
                    (block + 8).update(from: register, count: 8)
                    try Self.transform(block, with: context)
                    Self.store(Self.load(block) ^ UInt64(blocks * step + index), at: block)
                    register.update(from: block + 8, count: 8)
                }
            }
        }
        return work.withUnsafeBytes { state in
            Array(state[key.count..<key.count + 8]) + Array(state[0..<key.count])
        }
    }

    /// Unwraps an RFC 3394 wrapped key; `authenticationFailed` when the integrity check fails.
    public func unwrap(_ wrapped: [UInt8]) throws(CryptoError) -> SecureBytes {
        guard wrapped.count >= 24, wrapped.count.isMultiple(of: 8) else {
            throw .invalidInput("RFC 3394 wrapped key must be at least 24 bytes in 8-byte steps, got \(wrapped.count)")
        }
        let context = try self.context(encrypting: false)
        let keyCount = wrapped.count - 8
        let blocks = keyCount / 8
        var intact = false
        let work = try SecureBytes.filling(count: keyCount + 16) { state throws(CryptoError) in
            let block = state + keyCount
            try wrapped.withBytes { input, _ throws(CryptoError) in
                state.update(from: input + 8, count: keyCount)
                block.update(from: input, count: 8)
            }
            for step in (0..<6).reversed() {
                for index in (1...blocks).reversed() {
                    let register = state + (index - 1) * 8
                    Self.store(Self.load(block) ^ UInt64(blocks * step + index), at: block)
                    (block + 8).update(from: register, count: 8)
                    try Self.transform(block, with: context)
                    register.update(from: block + 8, count: 8)
                }
            }
            var expected = Self.initialValue.bigEndian
            intact = withUnsafeBytes(of: &expected) { CRYPTO_memcmp(block, $0.baseAddress, 8) == 0 }
        }
        guard intact else { throw .authenticationFailed }
        return work.prefix(keyCount)
    }

    /// The context of one direction, keyed on first use: AES-256 in ECB mode without padding, one block per call.
    private func context(encrypting: Bool) throws(CryptoError) -> CipherContext {
        if let existing = encrypting ? self.encrypting : decrypting { return existing }
        let context = try CipherContext()
        try kek.withBytes { kekPointer, _ throws(CryptoError) in
            try OpenSSLStatus.check(
                EVP_CipherInit_ex(
                    context.pointer, FetchedCipher.aes256ECB.pointer, nil, kekPointer, nil, encrypting ? 1 : 0),
                "EVP_CipherInit_ex")
        }
        try OpenSSLStatus.check(EVP_CIPHER_CTX_set_padding(context.pointer, 0), "EVP_CIPHER_CTX_set_padding")
        if encrypting { self.encrypting = context } else { decrypting = context }
        return context
    }

    /// Encrypts or decrypts (as `context` was keyed) the 16-byte block at `block` in place.
    private static func transform(_ block: UnsafeMutablePointer<UInt8>, with context: CipherContext)
        throws(CryptoError)
    {
        var written: Int32 = 0
        guard EVP_CipherUpdate(context.pointer, block, &written, block, 16) == 1, written == 16 else {
            throw OpenSSLStatus.failure("EVP_CipherUpdate")
        }
    }

    /// The big-endian 64-bit value at `pointer`.
    private static func load(_ pointer: UnsafeMutablePointer<UInt8>) -> UInt64 {
        UInt64(bigEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Writes `value` big-endian at `pointer`.
    private static func store(_ value: UInt64, at pointer: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: value.bigEndian, as: UInt64.self)
    }
}
