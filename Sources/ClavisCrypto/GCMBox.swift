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
        try checkKey(key, for: cipher)
        let count = try cLength(plaintext.count)
        let status = try key.withBytes { keyPointer, _ throws(CryptoError) in
            try nonce.withBytes { noncePointer, nonceCount throws(CryptoError) in
                try aad.withBytes { aadPointer, aadCount throws(CryptoError) in
                    try plaintext.withBytes { input, _ throws(CryptoError) in
                        clavis_gcm_seal(
                            context.pointer, cipher.pointer, isFresh ? 1 : 0, keyPointer, noncePointer,
                            Int32(nonceCount), aadPointer, try cLength(aadCount), input, count, output,
                            output + Int(count), Int32(AESGCM.tagByteCount))
                    }
                }
            }
        }
        guard status == 1 else { throw OpenSSLStatus.failure("clavis_gcm_seal") }
    }

    /// Decrypts the `count` bytes of ciphertext at `ciphertext` followed by their 16-byte tag under `key` and
    /// `nonce`, authenticating `aad`; `authenticationFailed` when the tag, the nonce, the key, the aad or any byte
    /// is wrong (the plaintext, written into a zeroing buffer, is wiped then).
    static func open(
        _ ciphertext: UnsafePointer<UInt8>, count: Int, key: SecureBytes, nonce: [UInt8],
        authenticating aad: [UInt8], context: CipherContext, isFresh: Bool, cipher: FetchedCipher = .aes256GCM
    ) throws(CryptoError) -> SecureBytes {
        precondition(count >= 0, "GCMBox.open needs a ciphertext count of zero or more")
        try checkKey(key, for: cipher)
        let length = try cLength(count)
        return try SecureBytes.filling(count: count) { output throws(CryptoError) in
            let status = try key.withBytes { keyPointer, _ throws(CryptoError) in
                try nonce.withBytes { noncePointer, nonceCount throws(CryptoError) in
                    try aad.withBytes { aadPointer, aadCount throws(CryptoError) in
                        clavis_gcm_open(
                            context.pointer, cipher.pointer, isFresh ? 1 : 0, keyPointer, noncePointer,
                            Int32(nonceCount), aadPointer, try cLength(aadCount), ciphertext, length,
                            ciphertext + count, Int32(AESGCM.tagByteCount), output)
                    }
                }
            }
            switch status {
            case 1: return
            case 0: throw OpenSSLStatus.cleared(.authenticationFailed)
            default: throw OpenSSLStatus.failure("clavis_gcm_open")
            }
        }
    }

    private static func checkKey(_ key: SecureBytes, for cipher: FetchedCipher) throws(CryptoError) {
        let keyByteCount = Int(EVP_CIPHER_get_key_length(cipher.pointer))
        guard key.count == keyByteCount else {
            throw .invalidKeySize(expected: keyByteCount, actual: key.count)
        }
    }

    private static func cLength(_ count: Int) throws(CryptoError) -> Int32 {
        guard let length = Int32(exactly: count) else {
            throw .invalidInput("AES-GCM input of \(count) bytes exceeds OpenSSL's int length")
        }
        return length
    }
}
