internal import COpenSSL
internal import ClavisCore

/// One AES-GCM box sealed or opened in a single call into OpenSSL (`clavis_gcm_seal`, `clavis_gcm_open` in the
/// shim) over a cipher context: fresh, or kept from a box of the same direction, cipher and nonce length.
enum GCMBox {
    /// Encrypts `plaintext` under `key` and `nonce` (callers check its length), authenticating `aad`, and writes the
    /// ciphertext followed by the 16-byte tag to `output`, which must have room for both.
    static func seal(
        _ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8], authenticating aad: [UInt8],
        context: CipherContext, isFresh: Bool, cipher: FetchedCipher = .aes256GCM,
        into output: UnsafeMutablePointer<UInt8>
    ) throws(CryptoError) {
        let count = try cLength(plaintext.count)
        let status = try withInputs(key: key, nonce: nonce, aad: aad, cipher: cipher) { inputs throws(CryptoError) in
            try plaintext.withBytes { input, _ throws(CryptoError) in
                clavis_gcm_seal(
                    context.pointer, cipher.pointer, isFresh ? 1 : 0, inputs.key, inputs.nonce, inputs.nonceLength,
                    inputs.aad, inputs.aadLength, input, count, output, output + Int(count),
                    Int32(AESGCM.tagByteCount))
            }
        }
        guard status == 1 else { throw OpenSSLStatus.failure("clavis_gcm_seal") }
    }

    /// Decrypts the ciphertext ‖ 16-byte tag that `box` holds from `start` on (after a nonce stored in front of it,
    /// or from 0) under `key` and `nonce`, authenticating `aad`; `authenticationFailed` when the tag, the nonce, the
    /// key, the aad or any byte is wrong (the plaintext, written into a zeroing buffer, is wiped then).
    static func open(
        _ box: [UInt8], textFrom start: Int, key: SecureBytes, nonce: [UInt8], authenticating aad: [UInt8],
        context: CipherContext, isFresh: Bool, cipher: FetchedCipher = .aes256GCM
    ) throws(CryptoError) -> SecureBytes {
        precondition(start >= 0 && start <= box.count, "GCMBox.open's text starts inside the box")
        let tagByteCount = AESGCM.tagByteCount
        guard box.count - start >= tagByteCount else {
            throw .invalidInput(
                "AES-GCM input must hold a \(tagByteCount)-byte tag, got \(box.count - start) bytes")
        }
        let count = box.count - start - tagByteCount
        let length = try cLength(count)
        return try SecureBytes.filling(count: count) { output throws(CryptoError) in
            let status = try withInputs(key: key, nonce: nonce, aad: aad, cipher: cipher) {
                inputs throws(CryptoError) in
                try box.withBytes { boxPointer, _ throws(CryptoError) in
                    clavis_gcm_open(
                        context.pointer, cipher.pointer, isFresh ? 1 : 0, inputs.key, inputs.nonce,
                        inputs.nonceLength, inputs.aad, inputs.aadLength, boxPointer + start, length,
                        boxPointer + start + count, Int32(tagByteCount), output)
                }
            }
            switch status {
            case 1: return
            case 0: throw OpenSSLStatus.cleared(.authenticationFailed)
            default: throw OpenSSLStatus.failure("clavis_gcm_open")
            }
        }
    }

    /// The inputs sealing and opening share, as the shim takes them: never-nil pointers, and lengths in C's `int`.
    private struct Inputs {
        let key: UnsafePointer<UInt8>
        let nonce: UnsafePointer<UInt8>
        let nonceLength: Int32
        let aad: UnsafePointer<UInt8>
        let aadLength: Int32
    }

    /// Checks `key` against `cipher`, then calls `body` with the inputs; the pointers must not escape.
    private static func withInputs(
        key: SecureBytes, nonce: [UInt8], aad: [UInt8], cipher: FetchedCipher,
        _ body: (Inputs) throws(CryptoError) -> Int32
    ) throws(CryptoError) -> Int32 {
        let keyByteCount = Int(EVP_CIPHER_get_key_length(cipher.pointer))
        guard key.count == keyByteCount else {
            throw .invalidKeySize(expected: keyByteCount, actual: key.count)
        }
        let aadLength = try cLength(aad.count)
        return try key.withBytes { keyPointer, _ throws(CryptoError) in
            try nonce.withBytes { noncePointer, nonceCount throws(CryptoError) in
                try aad.withBytes { aadPointer, _ throws(CryptoError) in
                    try body(
                        Inputs(
                            key: keyPointer, nonce: noncePointer, nonceLength: Int32(nonceCount), aad: aadPointer,
                            aadLength: aadLength))
                }
            }
        }
    }

    private static func cLength(_ count: Int) throws(CryptoError) -> Int32 {
        guard let length = Int32(exactly: count) else {
            throw .invalidInput("AES-GCM input of \(count) bytes exceeds OpenSSL's int length")
        }
        return length
    }
}
