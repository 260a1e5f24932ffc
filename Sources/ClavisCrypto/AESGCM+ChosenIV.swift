public import ClavisCore

// Apple's hybrid encryption (ECIES, RSA-OAEP with AES-GCM) uses AES-128 or AES-256 in GCM with a 16-byte IV and
// writes ciphertext ‖ tag, the IV being derived or fixed rather than sent.

extension AESGCM {
    /// Encrypts with AES-128-GCM or AES-256-GCM (by the key's length) under `iv`; returns ciphertext ‖ 16-byte tag.
    ///
    /// The (key, IV) pair must never repeat.
    public static func encrypt(
        _ plaintext: SecureBytes, key: SecureBytes, iv: [UInt8], authenticating aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try sealed.withMutableBytes { output, _ throws(CryptoError) in
            try GCMBox.seal(
                plaintext, key: key, nonce: try checked(iv), authenticating: aad, context: CipherContext(),
                isFresh: true, cipher: try cipher(for: key), into: output)
        }
        return sealed
    }

    /// Opens ciphertext ‖ tag made by `encrypt`; `authenticationFailed` when the tag, the IV, the key, the aad or
    /// any byte is wrong.
    public static func decrypt(
        _ sealed: [UInt8], key: SecureBytes, iv: [UInt8], authenticating aad: [UInt8]
    ) throws(CryptoError) -> SecureBytes {
        try GCMBox.open(
            sealed, textFrom: 0, key: key, nonce: try checked(iv), authenticating: aad, context: CipherContext(),
            isFresh: true, cipher: try cipher(for: key))
    }

    private static func cipher(for key: SecureBytes) throws(CryptoError) -> FetchedCipher {
        switch key.count {
        case 16: .aes128GCM
        case 32: .aes256GCM
        default: throw .invalidKeySize(expected: 32, actual: key.count)
        }
    }

    private static func checked(_ iv: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard (1...128).contains(iv.count) else { throw .invalidInput("AES-GCM IV of \(iv.count) bytes") }
        return iv
    }
}
