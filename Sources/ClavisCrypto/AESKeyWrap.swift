internal import COpenSSL
public import ClavisCore

/// AES key wrap (RFC 3394) and key wrap with padding (RFC 5649) for protecting keys under a key-encryption key.
///
/// The KEK is normally 32 bytes (AES-256); 16- and 24-byte KEKs are accepted too so that the published
/// RFC 5649 vectors, which use AES-192, can be checked.
public enum AESKeyWrap {
    /// RFC 3394 AES key wrap (EVP_aes_256_wrap); key to wrap must be a multiple of 8 bytes, >= 16. kek 32 bytes.
    public static func wrap(_ key: SecureBytes, with kek: SecureBytes) throws(CryptoError) -> [UInt8] {
        guard key.count >= 16, key.count.isMultiple(of: 8) else {
            throw .invalidInput("RFC 3394 key wrap needs a key of at least 16 bytes in 8-byte steps, got \(key.count)")
        }
        return try KeyWrapOperation(padded: false, kek: kek).wrap(key)
    }

    /// Unwraps; authenticationFailed when the integrity check fails (wrong kek or altered bytes).
    public static func unwrap(_ wrapped: [UInt8], with kek: SecureBytes) throws(CryptoError) -> SecureBytes {
        guard wrapped.count >= 24, wrapped.count.isMultiple(of: 8) else {
            throw .invalidInput("RFC 3394 wrapped key must be at least 24 bytes in 8-byte steps, got \(wrapped.count)")
        }
        return try KeyWrapOperation(padded: false, kek: kek).unwrap(wrapped)
    }

    /// RFC 5649 AES key wrap with padding (EVP_aes_256_wrap_pad) for a key of any length >= 1.
    public static func wrapWithPadding(_ key: SecureBytes, with kek: SecureBytes) throws(CryptoError) -> [UInt8] {
        guard key.count >= 1 else { throw .invalidInput("RFC 5649 key wrap needs at least 1 byte to wrap") }
        return try KeyWrapOperation(padded: true, kek: kek).wrap(key)
    }

    /// Unwraps an RFC 5649 wrapped key; authenticationFailed when the integrity check fails.
    public static func unwrapWithPadding(_ wrapped: [UInt8], with kek: SecureBytes) throws(CryptoError) -> SecureBytes {
        guard wrapped.count >= 16, wrapped.count.isMultiple(of: 8) else {
            throw .invalidInput("RFC 5649 wrapped key must be at least 16 bytes in 8-byte steps, got \(wrapped.count)")
        }
        return try KeyWrapOperation(padded: true, kek: kek).unwrap(wrapped)
    }
}

/// One key wrap or unwrap through OpenSSL's wrap ciphers over an owned cipher context.
private struct KeyWrapOperation {
    let padded: Bool
    let kek: SecureBytes
    let cipher: OpaquePointer

    init(padded: Bool, kek: SecureBytes) throws(CryptoError) {
        let chosen: OpaquePointer? =
            switch (kek.count, padded) {
            case (32, false): EVP_aes_256_wrap()
            case (32, true): EVP_aes_256_wrap_pad()
            case (24, false): EVP_aes_192_wrap()
            case (24, true): EVP_aes_192_wrap_pad()
            case (16, false): EVP_aes_128_wrap()
            case (16, true): EVP_aes_128_wrap_pad()
            default: throw .invalidKeySize(expected: AESGCM.keyByteCount, actual: kek.count)
            }
        guard let chosen else { throw OpenSSLStatus.failure(padded ? "EVP_aes_256_wrap_pad" : "EVP_aes_256_wrap") }
        self.padded = padded
        self.kek = kek
        self.cipher = chosen
    }

    func wrap(_ key: SecureBytes) throws(CryptoError) -> [UInt8] {
        // Wrapping adds one 8-byte block, plus at most 7 bytes of padding for RFC 5649.
        var output = [UInt8](repeating: 0, count: key.count + 16)
        let produced = try output.withMutableBytes { out, _ throws(CryptoError) in
            try key.withBytes { input, count throws(CryptoError) in
                try run(encrypting: true, input: input, count: count, output: out)
            }
        }
        return Array(output[0..<produced])
    }

    func unwrap(_ wrapped: [UInt8]) throws(CryptoError) -> SecureBytes {
        var produced = 0
        // The unwrapped length is known only afterwards (RFC 5649 strips padding), so decrypt into a zeroing
        // scratch buffer as large as the input and copy out the real prefix.
        let scratch = try SecureBytes.filling(count: wrapped.count + 8) { out throws(CryptoError) in
            produced = try wrapped.withBytes { input, count throws(CryptoError) in
                try run(encrypting: false, input: input, count: count, output: out)
            }
        }
        return scratch.prefix(produced)
    }

    private func run(encrypting: Bool, input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>)
        throws(CryptoError) -> Int
    {
        let context = try CipherContext()
        let ctx = context.pointer
        let direction: Int32 = encrypting ? 1 : 0
        // OpenSSL refuses wrap-mode ciphers unless the caller opts in with this flag.
        EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW)
        try kek.withBytes { kekPointer, _ throws(CryptoError) in
            try OpenSSLStatus.check(
                EVP_CipherInit_ex(ctx, cipher, nil, kekPointer, nil, direction), "EVP_CipherInit_ex")
        }
        return try context.keyWrapPass(encrypting: encrypting, input: input, count: count, output: output)
    }
}
