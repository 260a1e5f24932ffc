internal import COpenSSL

extension AsymmetricKey {
    /// Signs `digest` with this private key.
    ///
    /// `algorithm` names the hash the digest came from: the digest must be that long, and RSA paddings encode it
    /// (PKCS#1 v1.5 DigestInfo, PSS); it may be nil for ECDSA and PKCS#1 v1.5 (the digest is then used as given).
    /// Raw RSA takes a block of exactly the modulus' length.
    public func sign(digest: [UInt8], algorithm: DigestAlgorithm?, padding: SignaturePadding) throws(CryptoError)
        -> [UInt8]
    {
        guard isPrivate else { throw .invalidInput("signing needs a private key") }
        let context = try borrowContext()
        defer { returnContext(context) }
        try OpenSSLStatus.check(EVP_PKEY_sign_init(context.pointer), "EVP_PKEY_sign_init")
        try configure(context, digest: digest, algorithm: algorithm, padding: padding)
        return try digest.withBytes { input, count throws(CryptoError) in
            try context.produce("EVP_PKEY_sign") { output, length in
                EVP_PKEY_sign(context.pointer, output, length, input, count)
            }
        }
    }

    /// True when `signature` is this key's (public or private) signature over `digest`; false for any signature
    /// that does not verify, malformed ones included.
    public func verify(signature: [UInt8], digest: [UInt8], algorithm: DigestAlgorithm?, padding: SignaturePadding)
        throws(CryptoError) -> Bool
    {
        let context = try borrowContext()
        defer { returnContext(context) }
        try OpenSSLStatus.check(EVP_PKEY_verify_init(context.pointer), "EVP_PKEY_verify_init")
        try configure(context, digest: digest, algorithm: algorithm, padding: padding)
        if padding == .none, signature.count != blockByteCount { return false }
        let status = try signature.withBytes { signatureBytes, signatureCount throws(CryptoError) in
            try digest.withBytes { input, count throws(CryptoError) in
                EVP_PKEY_verify(context.pointer, signatureBytes, signatureCount, input, count)
            }
        }
        ERR_clear_error()
        return status == 1
    }

    /// Checks the input against the key and padding and sets the context's padding and digest.
    private func configure(
        _ context: PublicKeyContext, digest: [UInt8], algorithm: DigestAlgorithm?, padding: SignaturePadding
    ) throws(CryptoError) {
        if let algorithm, digest.count != algorithm.byteCount {
            throw .invalidInput("a \(algorithm.rawValue) digest is \(algorithm.byteCount) bytes, not \(digest.count)")
        }
        switch (kind, padding) {
        case (.ellipticCurve, .ecdsa):
            return
        case (.rsa, .pkcs1v15):
            try setPadding(context, RSA_PKCS1_PADDING)
            if let algorithm {
                try OpenSSLStatus.check(
                    EVP_PKEY_CTX_set_signature_md(context.pointer, algorithm.method), "EVP_PKEY_CTX_set_signature_md")
            } else if digest.count > blockByteCount - 11 {
                throw .invalidInput("PKCS#1 v1.5 input longer than the modulus allows")
            }
        case (.rsa, .pss):
            guard let algorithm else { throw .invalidInput("PSS needs a digest algorithm") }
            try setPadding(context, RSA_PKCS1_PSS_PADDING)
            try OpenSSLStatus.check(
                EVP_PKEY_CTX_set_signature_md(context.pointer, algorithm.method), "EVP_PKEY_CTX_set_signature_md")
            try OpenSSLStatus.check(
                EVP_PKEY_CTX_set_rsa_mgf1_md(context.pointer, algorithm.method), "EVP_PKEY_CTX_set_rsa_mgf1_md")
            try OpenSSLStatus.check(
                EVP_PKEY_CTX_set_rsa_pss_saltlen(context.pointer, Int32(algorithm.byteCount)),
                "EVP_PKEY_CTX_set_rsa_pss_saltlen")
        case (.rsa, .none):
            guard digest.count == blockByteCount else {
                throw .invalidInput("raw RSA input must be \(blockByteCount) bytes, not \(digest.count)")
            }
            try setPadding(context, RSA_NO_PADDING)
        default:
            throw .invalidInput("\(padding) does not apply to \(kind) keys")
        }
    }

    /// Sets an RSA padding mode on the context.
    func setPadding(_ context: PublicKeyContext, _ mode: Int32) throws(CryptoError) {
        try OpenSSLStatus.check(EVP_PKEY_CTX_set_rsa_padding(context.pointer, mode), "EVP_PKEY_CTX_set_rsa_padding")
    }
}
