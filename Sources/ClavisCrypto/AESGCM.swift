public import ClavisCore

/// AES-256 in Galois/Counter Mode, sealing into one byte string laid out as nonce ‖ ciphertext ‖ tag.
public enum AESGCM {
    /// The key length in bytes (AES-256).
    public static let keyByteCount = 32
    /// The nonce length in bytes (96 bits, the size GCM is specified for).
    public static let nonceByteCount = 12
    /// The authentication tag length in bytes (128 bits).
    public static let tagByteCount = 16

    /// Encrypts with AES-256-GCM under a fresh random 96-bit nonce; returns nonce ‖ ciphertext ‖ tag.
    public static func seal(
        _ plaintext: SecureBytes,
        key: SecureBytes,
        authenticating aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(count: nonceByteCount), authenticating: aad)
    }

    /// Same, with a caller-chosen nonce (for test vectors).
    ///
    /// Never reuse a nonce under the same key: doing so reveals the XOR of the plaintexts and the
    /// authentication key.
    public static func seal(
        _ plaintext: SecureBytes,
        key: SecureBytes,
        nonce: [UInt8],
        authenticating aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try AESGCMContext().seal(plaintext, key: key, nonce: nonce, authenticating: aad)
    }

    /// Opens nonce ‖ ciphertext ‖ tag; authenticationFailed when the tag, the aad or any byte is wrong.
    public static func open(
        _ combined: [UInt8],
        key: SecureBytes,
        authenticating aad: [UInt8]
    ) throws(CryptoError) -> SecureBytes {
        try AESGCMContext().open(combined, key: key, authenticating: aad)
    }
}

/// AES-256-GCM over cipher contexts kept from one box to the next: sealing or opening many boxes (each under its
/// own key) allocates no context and looks up no cipher per box.
///
/// Owns one cipher context per direction, created on first use and freed (and cleansed) in `deinit`; the last key's
/// schedule stays in it until the next box or the end. Not thread-safe: one owner uses it at a time.
public final class AESGCMContext {
    private var sealing: CipherContext?
    private var opening: CipherContext?

    /// Creates a context; nothing is allocated until the first box.
    public init() {}

    /// Frees both cipher contexts, which zeroes the last key's schedule; the next box makes new ones.
    public func forgetKey() {
        sealing = nil
        opening = nil
    }

    /// Encrypts with AES-256-GCM under a fresh random 96-bit nonce; returns nonce ‖ ciphertext ‖ tag.
    public func seal(_ plaintext: SecureBytes, key: SecureBytes, authenticating aad: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(count: AESGCM.nonceByteCount), authenticating: aad)
    }

    /// Same, with a caller-chosen nonce, which must never repeat under one key.
    public func seal(_ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8], authenticating aad: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        let nonceByteCount = AESGCM.nonceByteCount
        let tagByteCount = AESGCM.tagByteCount
        guard nonce.count == nonceByteCount else {
            throw .invalidInput("AES-GCM nonce must be \(nonceByteCount) bytes, got \(nonce.count)")
        }
        let isFresh = sealing == nil
        let context: CipherContext
        if let kept = sealing { context = kept } else { context = try CipherContext() }
        sealing = context
        let operation = try GCMOperation(
            encrypting: true, key: key, nonce: nonce, context: context, isFresh: isFresh)
        try operation.authenticate(aad)
        var combined = nonce + [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try combined.withMutableBytes { output, _ throws(CryptoError) in
            try plaintext.withBytes { input, count throws(CryptoError) in
                try operation.update(input, count: count, into: output + nonceByteCount)
            }
            try operation.finishEncrypting(tagInto: output + nonceByteCount + plaintext.count)
        }
        return combined
    }

    /// Opens nonce ‖ ciphertext ‖ tag; authenticationFailed when the tag, the aad or any byte is wrong.
    public func open(
        _ combined: [UInt8],
        key: SecureBytes,
        authenticating aad: [UInt8]
    ) throws(CryptoError) -> SecureBytes {
        let nonceByteCount = AESGCM.nonceByteCount
        let tagByteCount = AESGCM.tagByteCount
        guard combined.count >= nonceByteCount + tagByteCount else {
            throw .invalidInput(
                "AES-GCM box must hold at least \(nonceByteCount + tagByteCount) bytes, got \(combined.count)")
        }
        let ciphertextCount = combined.count - nonceByteCount - tagByteCount
        let isFresh = opening == nil
        let context: CipherContext
        if let kept = opening { context = kept } else { context = try CipherContext() }
        opening = context
        let operation = try GCMOperation(
            encrypting: false, key: key, nonce: Array(combined[0..<nonceByteCount]), context: context,
            isFresh: isFresh)
        try operation.authenticate(aad)
        // Unauthenticated plaintext only ever lives in this zeroing buffer, which is wiped if the tag fails.
        return try SecureBytes.filling(count: ciphertextCount) { output throws(CryptoError) in
            try combined.withBytes { input, _ throws(CryptoError) in
                try operation.update(input + nonceByteCount, count: ciphertextCount, into: output)
            }
            try operation.finishDecrypting(expectedTag: Array(combined.suffix(tagByteCount)))
        }
    }

}
