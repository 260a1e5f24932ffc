internal import COpenSSL
public import ClavisCore

extension AsymmetricKey {
    /// Encrypts `plaintext` with this RSA key's public part.
    public func encrypt(_ plaintext: SecureBytes, padding: RSAEncryptionPadding) throws(CryptoError) -> [UInt8] {
        guard case .rsa = kind else { throw .invalidInput("only RSA keys encrypt directly") }
        let limit = padding.maximumMessageByteCount(blockByteCount: blockByteCount)
        if padding == .none {
            guard plaintext.count == blockByteCount else {
                throw .invalidInput("raw RSA input must be \(blockByteCount) bytes, not \(plaintext.count)")
            }
        } else if plaintext.count > limit {
            throw .invalidInput("at most \(Swift.max(limit, 0)) bytes fit this key and padding, not \(plaintext.count)")
        }
        let context = try borrowContext()
        defer { returnContext(context) }
        try OpenSSLStatus.check(EVP_PKEY_encrypt_init(context.pointer), "EVP_PKEY_encrypt_init")
        try configure(context, padding)
        return try plaintext.withBytes { input, count throws(CryptoError) in
            try context.produce("EVP_PKEY_encrypt") { output, length in
                EVP_PKEY_encrypt(context.pointer, output, length, input, count)
            }
        }
    }

    /// Decrypts `ciphertext` (one block) with this private RSA key; the plaintext only ever lives in a zeroing
    /// buffer.
    public func decrypt(_ ciphertext: [UInt8], padding: RSAEncryptionPadding) throws(CryptoError) -> SecureBytes {
        guard case .rsa = kind, isPrivate else { throw .invalidInput("decryption needs a private RSA key") }
        guard ciphertext.count == blockByteCount else {
            throw .invalidInput("RSA ciphertext must be \(blockByteCount) bytes, not \(ciphertext.count)")
        }
        let context = try borrowContext()
        defer { returnContext(context) }
        try OpenSSLStatus.check(EVP_PKEY_decrypt_init(context.pointer), "EVP_PKEY_decrypt_init")
        try configure(context, padding)
        var length = blockByteCount
        let block = try SecureBytes.filling(count: blockByteCount) { output throws(CryptoError) in
            try ciphertext.withBytes { input, count throws(CryptoError) in
                guard EVP_PKEY_decrypt(context.pointer, output, &length, input, count) == 1 else {
                    throw OpenSSLStatus.cleared(.authenticationFailed)
                }
            }
        }
        return length == block.count ? block : block.prefix(length)
    }

    private func configure(_ context: PublicKeyContext, _ padding: RSAEncryptionPadding) throws(CryptoError) {
        switch padding {
        case .none:
            try setPadding(context, RSA_NO_PADDING)
        case .pkcs1:
            try setPadding(context, RSA_PKCS1_PADDING)
            try OpenSSLStatus.check(
                clavis_pkey_ctx_refuse_implicit_rejection(context.pointer), "EVP_PKEY_CTX_set_params")
        case .oaep(let digest):
            try setPadding(context, RSA_PKCS1_OAEP_PADDING)
            try OpenSSLStatus.check(
                EVP_PKEY_CTX_set_rsa_oaep_md(context.pointer, digest.method), "EVP_PKEY_CTX_set_rsa_oaep_md")
            try OpenSSLStatus.check(
                EVP_PKEY_CTX_set_rsa_mgf1_md(context.pointer, digest.method), "EVP_PKEY_CTX_set_rsa_mgf1_md")
        }
    }
}
