/// An algorithm for `SecKeyCreateSignature`, `SecKeyCreateEncryptedData` and `SecKeyCopyKeyExchangeResult`, named
/// by Apple's string (such as "algid:sign:ECDSA:message-X962:SHA256").
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {  // wraps an immutable string
    /// Apple's name of the algorithm.
    public let rawValue: CFString

    /// Wraps Apple's name of an algorithm.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    init(_ name: String) { rawValue = name as NSString }
}

extension SecKeyAlgorithm {
    /// Raw RSA signature of one block.
    public static let rsaSignatureRaw = SecKeyAlgorithm("algid:sign:RSA:raw")
    /// PKCS#1 v1.5 signature of input padded as it is, without a DigestInfo.
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15")
    /// PKCS#1 v1.5 signature of a SHA1 digest.
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA1")
    /// PKCS#1 v1.5 signature of a SHA224 digest.
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA224")
    /// PKCS#1 v1.5 signature of a SHA256 digest.
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// PKCS#1 v1.5 signature of a SHA384 digest.
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA384")
    /// PKCS#1 v1.5 signature of a SHA512 digest.
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA512")
    /// PKCS#1 v1.5 signature of a message hashed with SHA1.
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA1")
    /// PKCS#1 v1.5 signature of a message hashed with SHA224.
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA224")
    /// PKCS#1 v1.5 signature of a message hashed with SHA256.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA256")
    /// PKCS#1 v1.5 signature of a message hashed with SHA384.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA384")
    /// PKCS#1 v1.5 signature of a message hashed with SHA512.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA512")
    /// PSS signature of a SHA1 digest (MGF1-SHA1, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    /// PSS signature of a SHA224 digest (MGF1-SHA224, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA224:SHA224:24")
    /// PSS signature of a SHA256 digest (MGF1-SHA256, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    /// PSS signature of a SHA384 digest (MGF1-SHA384, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    /// PSS signature of a SHA512 digest (MGF1-SHA512, salt as long as the digest).
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    /// PSS signature of a message hashed with SHA1.
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    /// PSS signature of a message hashed with SHA224.
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA224:SHA224:24")
    /// PSS signature of a message hashed with SHA256.
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    /// PSS signature of a message hashed with SHA384.
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    /// PSS signature of a message hashed with SHA512.
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA512:SHA512:64")
    /// ECDSA of a digest as given, written r ‖ s (RFC 4754).
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:RFC4754")
    /// ECDSA of a digest as given, written in X9.62 DER.
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962")
    /// ECDSA of a SHA1 digest, in X9.62 DER.
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA1")
    /// ECDSA of a SHA224 digest, in X9.62 DER.
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA224")
    /// ECDSA of a SHA256 digest, in X9.62 DER.
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA256")
    /// ECDSA of a SHA384 digest, in X9.62 DER.
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA384")
    /// ECDSA of a SHA512 digest, in X9.62 DER.
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA512")
    /// ECDSA of a message hashed with SHA1, in X9.62 DER.
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA1")
    /// ECDSA of a message hashed with SHA224, in X9.62 DER.
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA224")
    /// ECDSA of a message hashed with SHA256, in X9.62 DER.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA of a message hashed with SHA384, in X9.62 DER.
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA384")
    /// ECDSA of a message hashed with SHA512, in X9.62 DER.
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA512")
    /// ECDSA of a SHA1 digest, written r ‖ s.
    public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA1")
    /// ECDSA of a SHA224 digest, written r ‖ s.
    public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA224")
    /// ECDSA of a SHA256 digest, written r ‖ s.
    public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA256")
    /// ECDSA of a SHA384 digest, written r ‖ s.
    public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA384")
    /// ECDSA of a SHA512 digest, written r ‖ s.
    public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA512")
    /// ECDSA of a message hashed with SHA1, written r ‖ s.
    public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA1")
    /// ECDSA of a message hashed with SHA224, written r ‖ s.
    public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA224")
    /// ECDSA of a message hashed with SHA256, written r ‖ s.
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA256")
    /// ECDSA of a message hashed with SHA384, written r ‖ s.
    public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA384")
    /// ECDSA of a message hashed with SHA512, written r ‖ s.
    public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA512")
    /// Raw RSA encryption of one block.
    public static let rsaEncryptionRaw = SecKeyAlgorithm("algid:encrypt:RSA:raw")
    /// RSAES-PKCS1-v1_5 encryption.
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm("algid:encrypt:RSA:PKCS1")
    /// RSAES-OAEP with SHA1 and MGF1-SHA1.
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1")
    /// RSAES-OAEP with SHA224 and MGF1-SHA224.
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224")
    /// RSAES-OAEP with SHA256 and MGF1-SHA256.
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256")
    /// RSAES-OAEP with SHA384 and MGF1-SHA384.
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384")
    /// RSAES-OAEP with SHA512 and MGF1-SHA512.
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512")
    /// An AES-GCM session key wrapped with RSA-OAEP-SHA1, then the data under it.
    public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1:AESGCM")
    /// An AES-GCM session key wrapped with RSA-OAEP-SHA224, then the data under it.
    public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224:AESGCM")
    /// An AES-GCM session key wrapped with RSA-OAEP-SHA256, then the data under it.
    public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256:AESGCM")
    /// An AES-GCM session key wrapped with RSA-OAEP-SHA384, then the data under it.
    public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384:AESGCM")
    /// An AES-GCM session key wrapped with RSA-OAEP-SHA512, then the data under it.
    public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512:AESGCM")
    /// ECIES: standard ECDH, X9.63 KDF with SHA1, AES-GCM under an all-zero IV.
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// ECIES: standard ECDH, X9.63 KDF with SHA224, AES-GCM under an all-zero IV.
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// ECIES: standard ECDH, X9.63 KDF with SHA256, AES-GCM under an all-zero IV.
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// ECIES: standard ECDH, X9.63 KDF with SHA384, AES-GCM under an all-zero IV.
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// ECIES: standard ECDH, X9.63 KDF with SHA512, AES-GCM under an all-zero IV.
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// ECIES: standard ECDH, X9.63 KDF with SHA224 giving key and IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES: standard ECDH, X9.63 KDF with SHA256 giving key and IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES: standard ECDH, X9.63 KDF with SHA384 giving key and IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES: standard ECDH, X9.63 KDF with SHA512 giving key and IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA1, AES-GCM under an all-zero IV.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA224, AES-GCM under an all-zero IV.
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA256, AES-GCM under an all-zero IV.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA384, AES-GCM under an all-zero IV.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA512, AES-GCM under an all-zero IV.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA224 giving key and IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA256 giving key and IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA384 giving key and IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES: cofactor ECDH, X9.63 KDF with SHA512 giving key and IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
        "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")
    /// Standard ECDH: the shared secret as it is.
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
    /// Standard ECDH followed by the X9.63 KDF with SHA1.
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA1")
    /// Standard ECDH followed by the X9.63 KDF with SHA224.
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA224")
    /// Standard ECDH followed by the X9.63 KDF with SHA256.
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA256")
    /// Standard ECDH followed by the X9.63 KDF with SHA384.
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA384")
    /// Standard ECDH followed by the X9.63 KDF with SHA512.
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA512")
    /// Cofactor ECDH: the shared secret as it is.
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm("algid:keyexchange:ECDHC")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA1.
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA224.
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA256.
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA384.
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// Cofactor ECDH followed by the X9.63 KDF with SHA512.
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA512")
}
