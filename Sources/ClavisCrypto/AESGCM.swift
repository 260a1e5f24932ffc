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
        guard nonce.count == nonceByteCount else {
            throw .invalidInput("AES-GCM nonce must be \(nonceByteCount) bytes, got \(nonce.count)")
        }
        let operation = try GCMOperation(encrypting: true, key: key, nonce: nonce)
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
    public static func open(
        _ combined: [UInt8],
        key: SecureBytes,
        authenticating aad: [UInt8]
    ) throws(CryptoError) -> SecureBytes {
        guard combined.count >= nonceByteCount + tagByteCount else {
            throw .invalidInput(
                "AES-GCM box must hold at least \(nonceByteCount + tagByteCount) bytes, got \(combined.count)")
        }
        let ciphertextCount = combined.count - nonceByteCount - tagByteCount
        let operation = try GCMOperation(encrypting: false, key: key, nonce: Array(combined[0..<nonceByteCount]))
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
