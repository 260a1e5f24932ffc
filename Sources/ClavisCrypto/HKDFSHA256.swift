internal import COpenSSL
public import ClavisCore

/// The HMAC-based extract-and-expand key derivation function (RFC 5869) with SHA-256.
public enum HKDFSHA256 {
    /// The largest output RFC 5869 allows for SHA-256: 255 blocks of 32 bytes.
    public static let maximumOutputByteCount = 255 * 32

    /// RFC 5869 HKDF-SHA256 through EVP_KDF "HKDF"; an empty salt means the RFC's default of zero bytes.
    public static func deriveKey(
        from inputKeyMaterial: SecureBytes,
        salt: [UInt8],
        info: [UInt8],
        outputByteCount: Int
    ) throws(CryptoError) -> SecureBytes {
        guard (1...maximumOutputByteCount).contains(outputByteCount) else {
            throw .invalidInput(
                "HKDF-SHA256 output must be 1...\(maximumOutputByteCount) bytes, got \(outputByteCount)")
        }
        let context = try KDFContext(algorithm: "HKDF")
        return try SecureBytes.filling(count: outputByteCount) { output throws(CryptoError) in
            try inputKeyMaterial.withBytes { ikm, ikmCount throws(CryptoError) in
                try salt.withBytes { saltPointer, saltCount throws(CryptoError) in
                    try info.withBytes { infoPointer, infoCount throws(CryptoError) in
                        var parameters = [clavis_kdf_param_digest_sha256(), clavis_kdf_param_key(ikm, ikmCount)]
                        // Omitting an empty salt lets OpenSSL use HashLen zero bytes, exactly as RFC 5869 says.
                        if saltCount > 0 { parameters.append(clavis_kdf_param_salt(saltPointer, saltCount)) }
                        if infoCount > 0 { parameters.append(clavis_kdf_param_info(infoPointer, infoCount)) }
                        parameters.append(OSSL_PARAM_construct_end())
                        try context.derive(into: output, count: outputByteCount, parameters: parameters)
                    }
                }
            }
        }
    }
}
