internal import COpenSSL
internal import ClavisCore

/// One AES-256-GCM encryption or decryption, step by step over an owned cipher context.
final class GCMOperation {
    private let context: CipherContext
    private let encrypting: Bool

    /// Initialises `context` (fresh, or one a finished operation of the same direction, cipher and nonce length
    /// used) with the cipher, the nonce (callers check its length) and the key.
    init(
        encrypting: Bool, key: SecureBytes, nonce: [UInt8], context: CipherContext, isFresh: Bool,
        cipher: FetchedCipher = .aes256GCM
    ) throws(CryptoError) {
        let keyByteCount = Int(EVP_CIPHER_get_key_length(cipher.pointer))
        guard key.count == keyByteCount else {
            throw .invalidKeySize(expected: keyByteCount, actual: key.count)
        }
        precondition(!nonce.isEmpty, "GCMOperation needs a nonce")
        self.encrypting = encrypting
        self.context = context
        let ctx = context.pointer
        let direction: Int32 = encrypting ? 1 : 0
        if isFresh {
            try OpenSSLStatus.check(
                EVP_CipherInit_ex(ctx, cipher.pointer, nil, nil, nil, direction), "EVP_CipherInit_ex")
            try OpenSSLStatus.check(
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil),
                "EVP_CIPHER_CTX_ctrl(EVP_CTRL_AEAD_SET_IVLEN)")
        }
        // A reused context keeps its cipher and nonce length; the new key and nonce replace the old ones.
        try key.withBytes { keyPointer, _ throws(CryptoError) in
            try nonce.withBytes { noncePointer, _ throws(CryptoError) in
                try OpenSSLStatus.check(
                    EVP_CipherInit_ex(ctx, nil, nil, keyPointer, noncePointer, direction), "EVP_CipherInit_ex")
            }
        }
    }

    /// Feeds additional authenticated data; call before any `update`.
    func authenticate(_ aad: [UInt8]) throws(CryptoError) {
        guard !aad.isEmpty else { return }
        let length = try Self.cLength(aad.count)
        var written: Int32 = 0
        try aad.withBytes { pointer, _ throws(CryptoError) in
            try OpenSSLStatus.check(
                EVP_CipherUpdate(context.pointer, nil, &written, pointer, length), "EVP_CipherUpdate(aad)")
        }
    }

    /// Transforms `count` bytes from `input` into `output`, which must have room for `count` bytes.
    func update(_ input: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>)
        throws(CryptoError)
    {
        guard count > 0 else { return }
        let length = try Self.cLength(count)
        var written: Int32 = 0
        try OpenSSLStatus.check(EVP_CipherUpdate(context.pointer, output, &written, input, length), "EVP_CipherUpdate")
        guard Int(written) == count else { throw OpenSSLStatus.failure("EVP_CipherUpdate") }
    }

    /// Finishes encryption and writes the 16-byte tag to `tag`.
    func finishEncrypting(tagInto tag: UnsafeMutablePointer<UInt8>) throws(CryptoError) {
        precondition(encrypting, "finishEncrypting on a decrypting GCMOperation")
        var written: Int32 = 0
        var trailing: UInt8 = 0  // GCM never buffers, so Final writes nothing; give it a valid address anyway.
        try OpenSSLStatus.check(EVP_CipherFinal_ex(context.pointer, &trailing, &written), "EVP_CipherFinal_ex")
        try OpenSSLStatus.check(
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_GET_TAG, Int32(AESGCM.tagByteCount), tag),
            "EVP_CIPHER_CTX_ctrl(EVP_CTRL_AEAD_GET_TAG)")
    }

    /// Finishes decryption; throws `authenticationFailed` unless `expectedTag` matches.
    func finishDecrypting(expectedTag: [UInt8]) throws(CryptoError) {
        precondition(!encrypting, "finishDecrypting on an encrypting GCMOperation")
        precondition(expectedTag.count == AESGCM.tagByteCount, "GCM tag must be 16 bytes")
        var tag = expectedTag
        try tag.withMutableBytes { pointer, count throws(CryptoError) in
            try OpenSSLStatus.check(
                EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_AEAD_SET_TAG, Int32(count), pointer),
                "EVP_CIPHER_CTX_ctrl(EVP_CTRL_AEAD_SET_TAG)")
        }
        var written: Int32 = 0
        var trailing: UInt8 = 0
        guard EVP_CipherFinal_ex(context.pointer, &trailing, &written) == 1 else {
            throw OpenSSLStatus.cleared(.authenticationFailed)
        }
    }

    private static func cLength(_ count: Int) throws(CryptoError) -> Int32 {
        guard let length = Int32(exactly: count) else {
            throw .invalidInput("AES-GCM input of \(count) bytes exceeds OpenSSL's int length")
        }
        return length
    }
}
