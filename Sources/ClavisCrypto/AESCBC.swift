internal import COpenSSL
public import ClavisCore

/// AES-128 in CBC mode with PKCS#7 padding, as the Secret Service's DH session encrypts secrets (its IV travels as
/// the secret's parameters). Unauthenticated: a session's only protection against other programs is the bus itself.
public enum AESCBC {
    /// The key length in bytes (AES-128).
    public static let keyByteCount = 16
    /// The IV and block length in bytes.
    public static let blockByteCount = 16

    /// Encrypts `plaintext` under `key` and `iv`; the ciphertext is padded to whole blocks.
    public static func encrypt(_ plaintext: SecureBytes, key: SecureBytes, iv: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        let context = try start(encrypting: true, key: key, iv: iv)
        var output = [UInt8](repeating: 0, count: plaintext.count + blockByteCount)
        var written: Int32 = 0
        var finished: Int32 = 0
        try output.withMutableBytes { pointer, _ throws(CryptoError) in
            try plaintext.withBytes { input, count throws(CryptoError) in
                try OpenSSLStatus.check(
                    EVP_EncryptUpdate(context.pointer, pointer, &written, input, Int32(count)), "EVP_EncryptUpdate")
            }
            try OpenSSLStatus.check(
                EVP_EncryptFinal_ex(context.pointer, pointer + Int(written), &finished), "EVP_EncryptFinal_ex")
        }
        return Array(output[0..<Int(written + finished)])
    }

    /// Decrypts `ciphertext` under `key` and `iv` and removes the padding.
    ///
    /// - Throws: `invalidInput` when the ciphertext is not whole blocks or its padding is wrong (a wrong key).
    public static func decrypt(_ ciphertext: [UInt8], key: SecureBytes, iv: [UInt8]) throws(CryptoError)
        -> SecureBytes
    {
        guard !ciphertext.isEmpty, ciphertext.count % blockByteCount == 0 else {
            throw .invalidInput("AES-CBC ciphertext must be whole 16-byte blocks")
        }
        let context = try start(encrypting: false, key: key, iv: iv)
        var length = 0
        let padded = try SecureBytes.filling(count: ciphertext.count) { output throws(CryptoError) in
            var written: Int32 = 0
            var finished: Int32 = 0
            try ciphertext.withBytes { input, count throws(CryptoError) in
                try OpenSSLStatus.check(
                    EVP_DecryptUpdate(context.pointer, output, &written, input, Int32(count)), "EVP_DecryptUpdate")
            }
            guard EVP_DecryptFinal_ex(context.pointer, output + Int(written), &finished) == 1 else {
                throw OpenSSLStatus.cleared(.invalidInput("AES-CBC padding is wrong: the key or IV does not match"))
            }
            length = Int(written + finished)
        }
        return padded.prefix(length)
    }

    private static func start(encrypting: Bool, key: SecureBytes, iv: [UInt8]) throws(CryptoError)
        -> CipherContext
    {
        guard key.count == keyByteCount else { throw .invalidKeySize(expected: keyByteCount, actual: key.count) }
        guard iv.count == blockByteCount else { throw .invalidInput("the AES-CBC IV must be 16 bytes") }
        let context = try CipherContext()
        try key.withBytes { keyPointer, _ throws(CryptoError) in
            try iv.withBytes { ivPointer, _ throws(CryptoError) in
                try OpenSSLStatus.check(
                    EVP_CipherInit_ex(
                        context.pointer, EVP_aes_128_cbc(), nil, keyPointer, ivPointer, encrypting ? 1 : 0),
                    "EVP_CipherInit_ex")
            }
        }
        return context
    }
}
