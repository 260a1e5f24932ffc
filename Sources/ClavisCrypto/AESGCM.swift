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
        nonce + (try seal(plaintext, key: key, knownNonce: nonce, authenticating: aad))
    }

    /// Encrypts under a nonce both sides know without storing it (a fixed nonce per part of a record, under a key
    /// that seals each part once: it must never repeat under one key); returns ciphertext ‖ tag.
    public func seal(_ plaintext: SecureBytes, key: SecureBytes, knownNonce nonce: [UInt8], authenticating aad: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        try Self.checkNonce(nonce)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + AESGCM.tagByteCount)
        try sealed.withMutableBytes { output, _ throws(CryptoError) in
            try Self.withKept(&sealing) { context, isFresh throws(CryptoError) in
                try GCMBox.seal(
                    plaintext, key: key, nonce: nonce, authenticating: aad, context: context, isFresh: isFresh,
                    into: output)
            }
        }
        return sealed
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
        return try openText(
            combined, textFrom: nonceByteCount, key: key, nonce: Array(combined[0..<nonceByteCount]),
            authenticating: aad)
    }

    /// Opens ciphertext ‖ tag sealed under a nonce both sides know (`seal(_:key:knownNonce:authenticating:)`);
    /// authenticationFailed when the tag, the nonce, the aad or any byte is wrong.
    public func open(_ sealed: [UInt8], key: SecureBytes, knownNonce nonce: [UInt8], authenticating aad: [UInt8])
        throws(CryptoError) -> SecureBytes
    {
        try Self.checkNonce(nonce)
        return try openText(sealed, textFrom: 0, key: key, nonce: nonce, authenticating: aad)
    }

    /// Opens the ciphertext ‖ tag `box` holds from `start` on over the kept opening context.
    private func openText(
        _ box: [UInt8], textFrom start: Int, key: SecureBytes, nonce: [UInt8], authenticating aad: [UInt8]
    ) throws(CryptoError) -> SecureBytes {
        // Unauthenticated plaintext only ever lives in a zeroing buffer, which is wiped if the tag fails.
        try Self.withKept(&opening) { context, isFresh throws(CryptoError) in
            try GCMBox.open(
                box, textFrom: start, key: key, nonce: nonce, authenticating: aad, context: context,
                isFresh: isFresh)
        }
    }

    /// Runs `body` over the kept context of one direction, or over a fresh one (`isFresh`), which is kept only once
    /// a box went through it: a box refused before OpenSSL set the context up (a key of the wrong size) would leave
    /// it without a cipher, and every later box on it would fail.
    private static func withKept<Value>(
        _ kept: inout CipherContext?, _ body: (CipherContext, _ isFresh: Bool) throws(CryptoError) -> Value
    ) throws(CryptoError) -> Value {
        if let context = kept { return try body(context, false) }
        let context = try CipherContext()
        let value = try body(context, true)
        kept = context
        return value
    }

    private static func checkNonce(_ nonce: [UInt8]) throws(CryptoError) {
        guard nonce.count == AESGCM.nonceByteCount else {
            throw .invalidInput("AES-GCM nonce must be \(AESGCM.nonceByteCount) bytes, got \(nonce.count)")
        }
    }
}
