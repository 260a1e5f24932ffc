internal import COpenSSL
public import ClavisCore

/// The ANSI X9.63 key-derivation function (SEC 1 §3.6.1): `Hash(Z ‖ counter ‖ SharedInfo)` for counter 1, 2, …,
/// concatenated and cut to length; computed by OpenSSL's "X963KDF".
public enum X963KDF {
    /// Derives `outputByteCount` bytes from the shared secret `secret` and `sharedInfo` with `digest`.
    public static func deriveKey(
        from secret: SecureBytes, sharedInfo: [UInt8], digest: DigestAlgorithm, outputByteCount: Int
    ) throws(CryptoError) -> SecureBytes {
        guard outputByteCount > 0, outputByteCount <= 1 << 20 else {
            throw .invalidInput("X9.63 KDF output must be 1 byte to 1 MiB, not \(outputByteCount)")
        }
        let context = try KDFContext(algorithm: "X963KDF")
        return try SecureBytes.filling(count: outputByteCount) { output throws(CryptoError) in
            try secret.withBytes { key, keyCount throws(CryptoError) in
                try sharedInfo.withBytes { info, infoCount throws(CryptoError) in
                    var parameters = [clavis_kdf_param_digest(digest.method), clavis_kdf_param_key(key, keyCount)]
                    if infoCount > 0 { parameters.append(clavis_kdf_param_info(info, infoCount)) }
                    parameters.append(OSSL_PARAM_construct_end())
                    try context.derive(into: output, count: outputByteCount, parameters: parameters)
                }
            }
        }
    }
}
