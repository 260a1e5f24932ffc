public import ClavisCore
public import ClavisCrypto

/// Signatures with a key, as Apple's `SecKeyCreateSignature` and `SecKeyVerifySignature` make and check them: the
/// algorithm named as Apple names it, the message hashed when the algorithm says so, a token-held key's digest signed
/// by the keychain service, ECDSA signatures in DER or r ‖ s.
public enum KeySignature {
    /// `ecdsa-with-SHA256` over the message for an EC key, PKCS#1 v1.5 over SHA-256 for an RSA key: the algorithm a
    /// caller that names none gets.
    public static func defaultAlgorithmName(for key: AsymmetricKey) -> String {
        KeyType(of: key) == .rsa
            ? "algid:sign:RSA:message-PKCS1v15:SHA256" : "algid:sign:ECDSA:message-X962:SHA256"
    }

    /// The signature scheme `algorithmName` names when `key` (private when `isPrivate`) can run it for `operation`.
    ///
    /// - Throws: `param` with Apple's text ("<algorithm>: algorithm not supported by the key <key>") otherwise.
    public static func scheme(
        named algorithmName: String, for operation: KeyOperation, key: AsymmetricKey, isPrivate: Bool
    ) throws(KeychainError) -> SignatureScheme {
        guard
            case .signature(let scheme) = try KeyAlgorithm.supported(
                named: algorithmName, for: operation, key: key, isPrivate: isPrivate)
        else {
            throw KeyAlgorithm.unsupported(algorithmName, key: key, isPrivate: isPrivate)
        }
        return scheme
    }

    /// Signs `data` (a message or a digest, as `scheme` says) with `key`, or, for a key a token holds, by handing the
    /// digest to `token` (the keychain service signs; the digest is all it sees).
    ///
    /// - Throws: `param` for input the algorithm refuses (a digest of the wrong length, a raw RSA block that is not
    ///   the modulus' length or not below it); what `token` throws.
    public static func sign(
        _ data: [UInt8], with key: AsymmetricKey, scheme: SignatureScheme, algorithmName: String,
        token: ((_ digest: [UInt8]) throws(KeychainError) -> SecureBytes)? = nil
    ) throws(KeychainError) -> [UInt8] {
        let refused = KeychainError(.param, "\(algorithmName): the input cannot be signed with this key")
        let digest = scheme.input(data)
        var signature: [UInt8]
        if let token {
            if let expected = scheme.digest, digest.count != expected.byteCount {
                throw KeychainError(.param, "bad digest size for \(algorithmName)")
            }
            signature = try token(digest).withUnsafeBytes { Array($0) }
        } else {
            do throws(CryptoError) {
                signature = try key.sign(digest: digest, algorithm: scheme.digest, padding: scheme.padding)
            } catch {
                throw refused
            }
        }
        if scheme.rawECDSA, case .ellipticCurve(let curve) = key.kind {
            do throws(CryptoError) {
                signature = try ECDSASignature.raw(fromDER: signature, curve: curve)
            } catch {
                throw refused
            }
        }
        return signature
    }

    /// Checks `signature` over `data` with the public key `key`.
    ///
    /// - Throws: `verifyFailed` when it does not hold (malformed signatures included); `param` for input the
    ///   algorithm refuses.
    public static func verify(
        _ signature: [UInt8], over data: [UInt8], with key: AsymmetricKey, scheme: SignatureScheme,
        algorithmName: String
    ) throws(KeychainError) {
        let digest = scheme.input(data)
        if let expected = scheme.digest, digest.count != expected.byteCount {
            throw KeychainError(.param, "bad digest size for \(algorithmName)")
        }
        if scheme.padding == .none, digest.count != key.blockByteCount {
            throw KeychainError(.param, "raw RSA input must be \(key.blockByteCount) bytes")
        }
        var bytes = signature
        if scheme.rawECDSA, case .ellipticCurve(let curve) = key.kind {
            guard let der = try? ECDSASignature.der(fromRaw: bytes, curve: curve) else {
                throw KeychainError(.verifyFailed, "Wrong ECDSA RFC4754 signature")
            }
            bytes = der
        }
        let verified = try? key.verify(
            signature: bytes, digest: digest, algorithm: scheme.digest, padding: scheme.padding)
        guard verified == true else {
            throw KeychainError(.verifyFailed, "\(algorithmName): signature verification failed")
        }
    }
}
